/**
 * The data folder holds real payloads and signature headers, and it may come from a cloned
 * repository: it is private to the user (folders 0700, files 0600, whatever the umask), and it is
 * never followed through links. Every file is opened with O_NOFOLLOW, and `secureDataFolder`
 * refuses, before anything is read or written, a folder in which a link (or a device, a pipe, a
 * file with a second hard link) stands where Hookbench writes: a committed `journal-…` that is a
 * symlink to `~/.bashrc` would otherwise be truncated or appended to.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const { O_WRONLY, O_RDONLY, O_APPEND, O_CREAT, O_TRUNC, O_EXCL, O_NOFOLLOW } = fs.constants;

/** Open flags: append (created 0600), never through a link. */
export const APPEND = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW;
/** Open flags: write from the start, truncating (created 0600), never through a link. */
export const REPLACE = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW;
/** Open flags: create a new file only. */
export const CREATE_NEW = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;
/** Open flags: read, never through a link. */
export const READ = O_RDONLY | O_NOFOLLOW;

/** A data folder Hookbench will not use, with the one line that says why. */
export class UnsafeDataFolderError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(
      `refusing the data folder: ${file} ${reason}. Hookbench never writes through links; remove it, or choose another folder with --data (hookbench.dataDirectory)`,
    );
    this.name = 'UnsafeDataFolderError';
  }
}

/** Creates a folder (and its missing parents) private to the user. */
export function mkdirPrivate(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Reads a whole file, never through a link. */
export function readPrivate(file: string): Buffer {
  const fd = fs.openSync(file, READ);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes a whole file (created 0600), never through a link. */
export function writePrivate(file: string, data: string | Uint8Array, flags = REPLACE): void {
  const fd = fs.openSync(file, flags, PRIVATE_FILE_MODE);
  try {
    fs.writeFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Checks the whole data folder before the server uses it, and makes it private: the folder and
 * every folder in it 0700, every file 0600 (folders of earlier versions were 0755/0644). Creates
 * the folder when it does not exist. Throws UnsafeDataFolderError for a link anywhere inside (the
 * folder itself included), anything that is neither a file nor a folder, a file with more than
 * one hard link, or an entry owned by another user.
 */
export function secureDataFolder(root: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirPrivate(root);
    return;
  }
  const uid = process.getuid?.();
  const walk = (entry: string, stat: fs.Stats): void => {
    if (stat.isSymbolicLink()) throw new UnsafeDataFolderError(entry, 'is a symbolic link');
    if (uid !== undefined && stat.uid !== uid) throw new UnsafeDataFolderError(entry, `belongs to another user (uid ${stat.uid})`);
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE) fs.chmodSync(entry, PRIVATE_DIR_MODE);
      for (const name of fs.readdirSync(entry)) {
        const child = path.join(entry, name);
        walk(child, fs.lstatSync(child));
      }
      return;
    }
    if (!stat.isFile()) throw new UnsafeDataFolderError(entry, 'is not a regular file');
    if (stat.nlink > 1) throw new UnsafeDataFolderError(entry, `has ${stat.nlink} hard links`);
    if ((stat.mode & 0o777) !== PRIVATE_FILE_MODE) fs.chmodSync(entry, PRIVATE_FILE_MODE);
  };
  walk(root, stat);
}
