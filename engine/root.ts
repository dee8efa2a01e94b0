import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;
/** The folder holding package.json, found from this module whether it runs from source or dist/. */
export function projectRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('socialgate: cannot find the project root (package.json)');
    dir = parent;
  }
  root = dir;
  return dir;
}
