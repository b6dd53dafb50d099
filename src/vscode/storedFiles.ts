/**
 * Editor documents of one of Hookbench's schemes (drafts, SQL consoles), kept as files in a folder
 * of VS Code's private storage for the workspace, so that a tab VS Code restores after a window
 * reload or a restart of VS Code finds its text (docs/inspector.md, "After a reload"). A
 * document's file is named after its URI's path, hashed: any title makes a short, safe name.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export class StoredFiles implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  /**
   * @param folder where the files are kept
   * @param depth how many segments a document's path has (fewer name a folder)
   * @param noun what the documents are, for the errors ("drafts")
   */
  constructor(
    protected readonly folder: string,
    private readonly depth: number,
    private readonly noun: string,
  ) {}

  /** The stored file of `uri`'s document, with `extension`. */
  protected storedPath(uri: vscode.Uri, extension = '.body'): string {
    return path.join(this.folder, `${createHash('sha256').update(uri.path).digest('hex').slice(0, 32)}${extension}`);
  }

  protected exists(uri: vscode.Uri): boolean {
    return fs.existsSync(this.storedPath(uri));
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    if (uri.path.split('/').filter(Boolean).length < this.depth) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    try {
      const found = fs.statSync(this.storedPath(uri));
      return { type: vscode.FileType.File, ctime: found.ctimeMs, mtime: found.mtimeMs, size: found.size };
    } catch {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
  }

  readFile(uri: vscode.Uri): Uint8Array {
    try {
      return fs.readFileSync(this.storedPath(uri));
    } catch {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    fs.mkdirSync(this.folder, { recursive: true });
    fs.writeFileSync(this.storedPath(uri), content);
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  delete(uri: vscode.Uri): void {
    fs.rmSync(this.storedPath(uri), { force: true });
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions(`${this.noun} have no folders`);
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions(`${this.noun} cannot be renamed`);
  }
}
