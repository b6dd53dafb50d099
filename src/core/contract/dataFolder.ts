/**
 * The data folder's layout (docs/runtime.md, "The data folder"): one folder per namespace, binding
 * and workflow, named by storage/names.ts's encoding, and serve's own files in one folder beside
 * them whose name no encoded binding can take. Serve writes it; the extension and the CLI read the
 * lock, the admin token and the login file in it.
 */
import * as path from 'node:path';

/** The folder of serve's own files, beside the namespaces. */
export const INTERNAL_DIR = '_hookbench';

/** What serve keeps in it. */
export type InternalPart = 'log' | 'format' | 'deliveries' | 'sink' | 'login' | 'serve.lock' | 'admin-token';

/** The path of one of serve's own files or folders in the data folder `dataDir`. */
export function internalPath(dataDir: string, part: InternalPart): string {
  return path.join(dataDir, INTERNAL_DIR, part);
}
