/**
 * One serve process per data folder. Two would write the same instances' journals and snapshots,
 * and each one's snapshots would delete journals the other is still appending to. That happens
 * easily: VS Code's receiver and a `hookbench serve` in the terminal both default to the
 * workspace's `.hookbench`. A lock file in the folder holds the owner's pid. A lock
 * whose process is gone (a crash, a SIGKILL) is taken over. A lock held by this same process
 * belongs to a server it started and did not stop, and is taken over too.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isRunning } from '../core/childProcess';
import { CREATE_NEW, mkdirPrivate, readPrivate, writePrivate } from '../core/runtime/privateFiles';
import { folderInUseMessage } from '../core/contract/serveFailures';

export class DataFolderInUseError extends Error {
  override readonly name = 'DataFolderInUseError';
}

export interface DataLock {
  release(): void;
}

function ownerOf(file: string): number | undefined {
  try {
    const pid = Number(readPrivate(file).toString('utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes `file` (inside `dataDir`) for this process, or throws DataFolderInUseError. */
export async function lockDataFolder(dataDir: string, file: string): Promise<DataLock> {
  mkdirPrivate(path.dirname(file));
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writePrivate(file, `${process.pid}\n`, CREATE_NEW);
      return {
        release() {
          if (ownerOf(file) === process.pid) fs.rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // An empty file may be one another process created a moment ago and is about to write.
    const owner = ownerOf(file) ?? (await new Promise((resolve) => setTimeout(resolve, 100)), ownerOf(file));
    if (owner !== undefined && owner !== process.pid && isRunning(owner)) {
      throw new DataFolderInUseError(folderInUseMessage(dataDir, owner, file));
    }
    // Left by a process that is gone, or by one that died while creating it.
    fs.rmSync(file, { force: true });
  }
  throw new DataFolderInUseError(`could not take ${file}: another process keeps creating it`);
}
