// Processes read from /proc (Linux): a process's descendants, its command line, and the TCP
// sockets it holds in LISTEN state. Used to prove which processes a test's serve started and
// that none of them offers a port (a DevTools endpoint) to other users of the machine.
import * as fs from 'node:fs';

/** Reads a /proc file of a process that may exit meanwhile, or cannot be read (sandboxed, non-dumpable). */
function procRead<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** A process's parent, from /proc/<pid>/stat; undefined once it is gone. */
function parentOf(pid: number): number | undefined {
  const stat = procRead(() => fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
  return stat === undefined ? undefined : Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** `root` and every process below it, from the parent id in each /proc/<pid>/stat. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    const ppid = parentOf(Number(name));
    if (ppid === undefined) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

export function commandLine(pid: number): string[] {
  return (
    procRead(() =>
      fs
        .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .filter((arg) => arg !== ''),
    ) ?? []
  );
}

/** The processes of `root`'s tree whose command line mentions Chromium. */
export function chromiumProcesses(root: number): number[] {
  return processTree(root).filter((pid) => commandLine(pid).some((arg) => /chromium/i.test(arg)));
}

/** The Chromium browsers `root` started itself: its children (the browsers start their helpers). */
export function chromiumBrowsers(root: number): number[] {
  return chromiumProcesses(root).filter((pid) => parentOf(pid) === root);
}

/**
 * The TCP sockets `pid` holds that are listening, by inode: its fds' `socket:[inode]` links
 * matched with the LISTEN (state 0A) rows of /proc/<pid>/net/tcp and tcp6, its own network
 * namespace's tables. Undefined when its fds cannot be read.
 */
export function listeningSockets(pid: number): string[] | undefined {
  const links = procRead(() => fs.readdirSync(`/proc/${pid}/fd`).map((fd) => procRead(() => fs.readlinkSync(`/proc/${pid}/fd/${fd}`))));
  if (!links) return undefined;
  const listening = new Set<string>();
  for (const table of ['tcp', 'tcp6']) {
    const rows = procRead(() => fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1)) ?? [];
    for (const row of rows) {
      const fields = row.trim().split(/\s+/);
      if (fields[3] === '0A') listening.add(fields[9]!);
    }
  }
  return links.map((link) => /^socket:\[(\d+)\]$/.exec(link ?? '')?.[1]).filter((inode): inode is string => inode !== undefined && listening.has(inode));
}
