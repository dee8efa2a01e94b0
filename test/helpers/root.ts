// Where the project and the folders beside it are. Tests run compiled from dist/test/, so a path
// relative to a test's own file would be one folder off: every test finds files from ROOT instead.
import { join } from 'node:path';
import { projectRoot } from '../../engine/root.js';

/** The folder holding package.json. */
export const ROOT = projectRoot();

/** A path inside the project: fromRoot('test', 'fixtures', 'work') */
export const fromRoot = (...parts: string[]): string => join(ROOT, ...parts);

/** `../shared` beside the project (specification, upstream vocabulary, design notes), present here and in CI only. */
export const SHARED = join(ROOT, '..', 'shared');
