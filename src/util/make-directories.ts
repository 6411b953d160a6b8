import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates the folder `path` and its missing parents, like `mkdir -p`, and returns normally when it
 * already is a folder.
 *
 * Why not `mkdirSync(path, { recursive: true })`: Node's recursive mkdir retries the child for as
 * long as the file system answers ENOENT after its parent exists, and a pseudo file system answers
 * that forever (`/proc/anything`: measured on Node 24.22.3, the call never returns and spins in the
 * kernel). A `report-path` or RUNNER_TEMP under such a folder hung the action and the CI run. Here
 * each folder is made once, top down, so the same path ends in the file system's error.
 *
 * @param mode permission bits of the folders this call creates (default 0o777 less the umask).
 * @throws the file system's error (ENOENT, ENOTDIR, EACCES, EROFS, ...); EEXIST when `path` or a
 *   parent exists and is not a folder.
 */
export function makeDirectories(path: string, mode?: number): void {
  try {
    mkdirSync(path, { mode });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (statSync(path).isDirectory()) return;
      throw error;
    }
    const parent = dirname(path);
    if (code !== 'ENOENT' || parent === path) throw error;
    makeDirectories(parent, mode);
    mkdirSync(path, { mode });
  }
}
