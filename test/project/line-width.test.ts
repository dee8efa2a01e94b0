// Every line of the code within the formatter's width (biome.json's lineWidth). The formatter breaks
// the code but not a string, a template's text or a comment: those are brought under it by hand, and
// this test names each one that is not. The figure is read from biome.json, so the two cannot drift.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/root.js';

const root = ROOT;
const width = (JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as { formatter: { lineWidth: number } }).formatter.lineWidth;
const FOLDERS = ['engine', 'adapters', 'plugins', 'bin', 'bench', 'console', 'test'];
const SKIPPED = new Set(['node_modules', 'dist', 'fixtures', 'artifacts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sources(join(dir, entry.name));
    return /\.(ts|js|mjs)$/.test(entry.name) ? [join(dir, entry.name)] : [];
  });
}

/** Lines over the width, as `file:line (length)`; a length counts characters, not UTF-8 bytes. */
function overWidth(files: readonly string[], limit: number): string[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => ([...line].length > limit ? [`${relative(root, file)}:${i + 1} (${[...line].length})`] : [])),
  );
}

t.test('the check counts characters and names the line', async (t) => {
  const dir = t.testdir({ 'a.ts': `${'─'.repeat(10)}\nshort\n${'x'.repeat(11)}\n` });
  t.same(
    overWidth([join(dir, 'a.ts')], 10).map((where) => where.replace(/^.*a\.ts/, 'a.ts')),
    ['a.ts:3 (11)'],
  );
});

t.test(`no line of the code is over ${width} characters`, async (t) => {
  t.ok(width >= 80 && width <= 200, `biome.json's lineWidth (${width}) is read`);
  const files = FOLDERS.flatMap((folder) => sources(join(root, folder)));
  t.ok(files.length > 300, `${files.length} files read`);
  t.same(overWidth(files, width), [], 'break the string or the comment by hand (the formatter leaves them)');
});
