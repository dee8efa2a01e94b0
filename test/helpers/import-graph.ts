// The runtime import graph of TypeScript sources: each file's static imports and re-exports that
// survive compilation (TypeScript's own elision decides: `import type`, and names used only as
// types, leave no edge). Dynamic `import()` loads lazily and closes no load-time cycle: not counted.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Every .ts file under `dirs` (relative to root), with the files it imports at run time. */
export function importGraph(root: string, dirs: readonly string[]): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((dir) => sources(join(root, dir)))) {
    graph.set(
      relative(root, file),
      runtimeImports(file).map((target) => relative(root, target)),
    );
  }
  return graph;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The project files one file imports once compiled: relative specifiers only (packages are leaves). */
function runtimeImports(file: string): string[] {
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: file,
  });
  const js = ts.createSourceFile(file + '.js', outputText, ts.ScriptTarget.ES2022, false, ts.ScriptKind.JS);
  const targets: string[] = [];
  for (const statement of js.statements) {
    const from = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
    if (from && ts.isStringLiteral(from) && from.text.startsWith('.')) targets.push(resolve(dirname(file), from.text.replace(/\.js$/, '.ts')));
  }
  return targets;
}

/** Every cycle, each once, as the files around it (strongly connected components of two or more, or a file importing itself). */
export function cycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found;
}

/** Imports from files under `from` into files under `into` (a layer reaching where it must not). */
export function reaching(graph: ImportGraph, from: string, into: string): string[] {
  return [...graph].flatMap(([file, targets]) => (file.startsWith(from) ? targets.filter((t) => t.startsWith(into)).map((t) => `${file} → ${t}`) : []));
}
