import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder that holds groupadmin's package.json, found upwards from this module. The module
 * runs from src/lib (tests), dist/lib (the compiled tree) and dist/bundle (the bundle that
 * `npm start` and the command line run), so a fixed relative path would hold in two of three.
 */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}
