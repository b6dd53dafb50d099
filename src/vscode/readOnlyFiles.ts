/**
 * A read-only file system over documents Hookbench reads from the receiver when they open (a
 * delivery, an event, a state of the timeline). VS Code gives a tab back after a window reload or
 * a restart only when a file system provider serves its scheme: tabs of a text document content
 * provider were dropped (docs/explorer.md, "Deliveries"). The extension starts for these schemes
 * (`onFileSystem:` activation events), so a restored tab reads its text again.
 */
import * as vscode from 'vscode';

/** How long the text `stat` read serves the `readFile` that follows it (VS Code asks both to open a file). */
const SHARED_READ_MS = 2_000;
/** Documents whose last read is kept (for the time VS Code compares): the newest ones. */
const KEPT_READS = 100;

interface Read {
  readonly bytes: Uint8Array;
  readonly at: number;
}

export class ReadOnlyFiles implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  private readonly reads = new Map<string, Read>();

  /**
   * @param text reads the document `uri` names; undefined when `uri` names none (a folder of the path)
   */
  constructor(private readonly text: (uri: vscode.Uri) => Promise<string> | undefined) {}

  /** The documents shown may read differently now (the receiver started, a step changed): VS Code reads them again. */
  refresh(uris: readonly vscode.Uri[]): void {
    for (const uri of uris) this.reads.delete(uri.toString());
    if (uris.length > 0) this.changed.fire(uris.map((uri) => ({ type: vscode.FileChangeType.Changed, uri })));
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const read = await this.read(uri, false);
    if (!read) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0, permissions: vscode.FilePermission.Readonly };
    return { type: vscode.FileType.File, ctime: read.at, mtime: read.at, size: read.bytes.byteLength, permissions: vscode.FilePermission.Readonly };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const read = await this.read(uri, true);
    if (!read) throw vscode.FileSystemError.FileIsADirectory(uri);
    return read.bytes;
  }

  /** The document's text: the one `stat` just read, when `shared` and recent, else read now. */
  private async read(uri: vscode.Uri, shared: boolean): Promise<Read | undefined> {
    const key = uri.toString();
    const recent = this.reads.get(key);
    if (shared && recent && Date.now() - recent.at < SHARED_READ_MS) return recent;
    const reading = this.text(uri);
    if (!reading) return undefined;
    const bytes = new TextEncoder().encode(await reading);
    // A changed text gets a later time, which is what VS Code compares to see a change.
    const at = recent && sameBytes(recent.bytes, bytes) ? recent.at : Math.max(Date.now(), (recent?.at ?? 0) + 1);
    const read = { bytes, at };
    this.reads.delete(key);
    this.reads.set(key, read);
    if (this.reads.size > KEPT_READS) this.reads.delete(this.reads.keys().next().value!);
    return read;
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  writeFile(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
}
