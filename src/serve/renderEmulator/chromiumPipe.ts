/**
 * One Chromium driven over DevTools' pipe (`--remote-debugging-pipe`: fd 3 in, fd 4 out, each
 * message JSON ending in a NUL byte), never over a port: a port on loopback would let any local
 * user drive it (docs/security.md, The browser). A browser session of the binding is one of these.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';

export class ChromiumPipe {
  readonly #child: ChildProcess;
  readonly #input: Writable;
  #buffered: Buffer[] = [];
  #onMessage: (message: string) => void = () => undefined;
  readonly exited: Promise<void>;

  private constructor(child: ChildProcess, profile: string) {
    this.#child = child;
    this.#input = child.stdio[3] as Writable;
    this.#input.on('error', () => undefined);
    (child.stdio[4] as Readable).on('data', (chunk: Buffer) => this.#read(chunk));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    void this.exited.then(() => fs.rmSync(profile, { recursive: true, force: true }));
  }

  /** Starts Chromium headless on about:blank with a fresh profile; resolves once it answers DevTools. */
  static async launch(executablePath: string, args: readonly string[]): Promise<ChromiumPipe> {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-browser-session-'));
    const child = spawn(executablePath, [...args, '--headless=new', '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    const pipe = new ChromiumPipe(child, profile);
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      void pipe.exited.then(() => reject(new Error(`Chromium at ${executablePath} exited at start`)));
      pipe.#onMessage = () => resolve();
      pipe.send(JSON.stringify({ id: 0, method: 'Browser.getVersion' }));
    });
    return pipe;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Where every message from Chromium goes from now on. */
  onMessage(listener: (message: string) => void): void {
    this.#onMessage = listener;
  }

  send(message: string): void {
    if (this.#child.exitCode === null) this.#input.write(message + '\0');
  }

  /** Asks Chromium to close, and kills it if it has not within `graceMs`. */
  async close(graceMs = 2_000): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.send(JSON.stringify({ id: 0, method: 'Browser.close' }));
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
      this.#buffered.push(chunk.subarray(start, end));
      const message = Buffer.concat(this.#buffered).toString('utf8');
      this.#buffered = [];
      this.#onMessage(message);
      start = end + 1;
    }
    if (start < chunk.length) this.#buffered.push(chunk.subarray(start));
  }
}
