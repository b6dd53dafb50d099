// Modules esbuild makes at build time (see esbuild.js).
declare module 'hookbench:github-events' {
  /** GitHub's webhook events (@octokit/webhooks-examples), each with its actions. */
  const events: Record<string, string[]>;
  export default events;
}
