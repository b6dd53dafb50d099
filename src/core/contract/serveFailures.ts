/**
 * The two ways `hookbench serve` fails to start that the extension answers with a way out (Use
 * Another Port, Take Over): the one line the serve process prints, declared once for the CLI
 * that writes it and the extension that reads it.
 */

/** The receiver's port is taken; the line names the flag that picks another. */
export const portInUseMessage = (host: string, port: string): string => `port ${port} on ${host} is in use by another program: choose another with --port (--port 0 picks a free one)`;
export const PORT_IN_USE = /port (\d+) on \S+ is in use by another program/;

/** The data folder's lock is held by another live serve: `stop it, or …` for the CLI's user. */
export const folderInUseMessage = (dataDir: string, pid: number, lockFile: string): string =>
  `the data folder ${dataDir} is in use by another hookbench serve (pid ${pid}): stop it, or give this one its own folder with --data. If no hookbench is running, delete ${lockFile}.`;
export const FOLDER_IN_USE = /data folder (.+?) is in use by another hookbench serve \(pid (\d+)\)/;
