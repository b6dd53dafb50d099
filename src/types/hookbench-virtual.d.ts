// Modules esbuild makes at build time (see esbuild.js).
declare module 'hookbench:github-examples' {
  const examples: Record<string, { actions: string[]; example: Record<string, unknown> }>;
  export default examples;
}
