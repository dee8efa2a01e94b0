// The README's configuration tables against the settings table, both ways: every setting the start
// accepts (engine/config.ts's flags and the modules' rows, engine/modules.ts) has a README row, every
// variable a README row names is one the start accepts, and a row naming one setting shows its default.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { productModules } from '../../bin/compose.js';
import { SETTINGS } from '../../engine/config.js';
import { projectRoot } from '../../engine/manifest/load.js';

const readme = readFileSync(join(projectRoot(), 'README.md'), 'utf8');

/** The variables each table row names in its first two cells, with its default cell (the one after them). */
function documentedRows(): { names: string[]; fallback: string }[] {
  return readme
    .split('\n')
    .filter((line) => line.startsWith('| '))
    .flatMap((line) => {
      const cells = line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim());
      const at = cells.slice(0, 2).findIndex((cell) => /`SOCIALGATE_[A-Z0-9_]+`|^`(PORT|HOST)`$/.test(cell));
      if (at < 0) return [];
      const names = [...cells[at]!.matchAll(/`((?:SOCIALGATE_)?[A-Z0-9_*]+)`/g)]
        .map((m) => m[1]!)
        .filter((name) => name.startsWith('SOCIALGATE_') || name === 'PORT' || name === 'HOST');
      return [{ names, fallback: (cells[at + 1] ?? '').replace(/`/g, '') }];
    });
}

const rows = documentedRows();
const table = productModules().settings;
const accepted = new Set([...SETTINGS.map((s) => s.env), ...table.map((row) => `SOCIALGATE_${row.name}`)]);
const documented = new Set(rows.flatMap((row) => row.names));

t.test('the README documents every setting the start accepts', async (t) => {
  t.ok(table.length > 30, `${table.length} module and adapter settings`);
  for (const name of accepted) t.ok(documented.has(name), `${name} has a README row`);
});

t.test('every variable the README documents is one the start accepts', async (t) => {
  for (const name of documented) t.ok(accepted.has(name), `${name} is in the settings table`);
});

t.test("a row naming one setting shows the table's default", async (t) => {
  const byName = new Map(table.map((row) => [`SOCIALGATE_${row.name}`, row]));
  let checked = 0;
  for (const row of rows.filter((r) => r.names.length === 1 && byName.has(r.names[0]!))) {
    t.equal(row.fallback, byName.get(row.names[0]!)!.default, `${row.names[0]}'s default`);
    checked++;
  }
  t.ok(checked > 20, `${checked} defaults checked`);
});
