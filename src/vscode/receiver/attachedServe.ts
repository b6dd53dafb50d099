/**
 * A `hookbench serve` this window did not start (a terminal's, a task's, another window's) that
 * holds the workspace's data folder: the views attach to it through its admin API, with the token
 * it keeps in the folder (src/core/contract/adminTokenFile.ts), and are told when it stops. It is
 * never stopped from here: Stop detaches. A serve that speaks another admin protocol than this
 * extension (src/core/contract/adminProtocol.ts) is not attached to.
 */
import { expectProtocol } from '../../core/contract/adminProtocol';
import { adminTokenFile, parseAdminTokenFile, type AdminTokenFile } from '../../core/contract/adminTokenFile';
import type { ServeLock } from '../../core/contract/serveLock';
import { stillHolds } from '../../core/lockHolder';
import { readPrivate } from '../../core/privateFiles';
import { originText, type HolderOrigin } from '../../core/serveHolder';

/** What the status bar and the views say of the serve attached to. */
export interface AttachedServe {
  readonly pid: number;
  /** "in a terminal (bash)", "from a task or script (…)", …: core/serveHolder.ts. */
  readonly origin: string;
}

/** How often the attached serve's pid is looked at: its Ctrl+C shows within a second. */
const WATCH_MS = 1000;

export class Attachment {
  private readonly timer: NodeJS.Timeout;

  private constructor(
    readonly serve: AttachedServe,
    readonly url: string,
    readonly token: string,
    lock: ServeLock,
    onGone: () => void,
  ) {
    this.timer = setInterval(() => {
      if (stillHolds(lock)) return;
      this.dispose();
      onGone();
    }, WATCH_MS);
    this.timer.unref();
  }

  /**
   * Attaches to the live holder `lock` names; throws with one line when its token cannot be read
   * (a serve of a version that did not keep it, or a file that is not one serve wrote), and a
   * ProtocolMismatchError when it speaks another admin protocol than this extension.
   */
  static open(dataDir: string, lock: ServeLock, origin: HolderOrigin, onGone: () => void): Attachment {
    const file = adminTokenFile(dataDir);
    let kept: AdminTokenFile | undefined;
    try {
      kept = parseAdminTokenFile(readPrivate(file).toString('utf8'));
    } catch (error) {
      kept = undefined;
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new Error(`the hookbench serve of pid ${lock.pid} holds ${dataDir}, but its admin token ${file} could not be read (${(error as Error).message})`);
    }
    if (!kept)
      throw new Error(
        `the hookbench serve of pid ${lock.pid} holds ${dataDir} but keeps no admin token in ${file} (an older hookbench?): stop it, or restart it to attach`,
      );
    expectProtocol(
      `the hookbench serve of pid ${lock.pid} (holding ${dataDir})`,
      kept.protocol,
      "not attached. Restart that serve with this extension's version of hookbench, or stop it and Start Receiver starts this window's own",
    );
    return new Attachment({ pid: lock.pid, origin: originText(origin) }, `http://${lock.admin!}`, kept.token, lock, onGone);
  }

  dispose(): void {
    clearInterval(this.timer);
  }
}
