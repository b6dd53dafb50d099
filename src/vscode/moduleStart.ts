// The moment the extension's bundle began evaluating: imported first by src/extension.ts, so
// activation's figure can include loading the code, as VS Code's own activation time does.
export const moduleStart = performance.now();
