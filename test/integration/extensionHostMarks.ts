// VS Code's own timeline of an extension's activation, from the performance marks its extension
// host sets (`globalThis.MonacoPerformanceMarks`, ms since the epoch): code loading (VS Code's
// `codeLoadingTime`, the `require` of the main file), the wait for the ExtensionContext (its
// storage, fetched from the workbench in parallel with the code), and the `activate` call.

type Marks = { getMarks(): { name: string; startTime: number }[] };

export type ExtensionHostActivation = {
  willLoadCode: number;
  didLoadCode: number;
  willActivate: number;
  didActivate: number;
};

/** The extension's activation marks, or undefined where the extension host sets none (or not yet). */
export function extensionHostActivation(extensionId: string): ExtensionHostActivation | undefined {
  const marks = (globalThis as { MonacoPerformanceMarks?: Marks }).MonacoPerformanceMarks?.getMarks();
  if (!marks) return undefined;
  const at = (name: string) => marks.find((m) => m.name === `code/extHost/${name}/${extensionId}`)?.startTime;
  const found = {
    willLoadCode: at('willLoadExtensionCode'),
    didLoadCode: at('didLoadExtensionCode'),
    willActivate: at('willActivateExtension'),
    didActivate: at('didActivateExtension'),
  };
  return Object.values(found).every((t) => typeof t === 'number' && Number.isFinite(t)) ? (found as ExtensionHostActivation) : undefined;
}

/**
 * Every extension's marked code loading (its main file's `require`) that ended within [from, to]:
 * extensions activated in one batch (at startup, say) load one after the other, and VS Code's
 * code loading time for each counts from the batch's start, so it holds the others loaded before.
 */
export function codeLoadingBetween(from: number, to: number): { id: string; ms: number }[] {
  const marks = (globalThis as { MonacoPerformanceMarks?: Marks }).MonacoPerformanceMarks?.getMarks() ?? [];
  const prefix = 'code/extHost/didLoadExtensionCode/';
  return marks
    .filter((m) => m.name.startsWith(prefix) && m.startTime >= from && m.startTime <= to)
    .map((done) => {
      const id = done.name.slice(prefix.length);
      const start = marks.find((m) => m.name === `code/extHost/willLoadExtensionCode/${id}`);
      return { id, ms: start ? done.startTime - start.startTime : Number.NaN };
    });
}
