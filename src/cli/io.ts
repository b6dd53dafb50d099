/** The process surface a CLI command uses, injected so tests can run commands in-process. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: NodeJS.ProcessEnv;
}

export const processIo: CliIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
