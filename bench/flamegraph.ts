// A flame graph of a V8 CPU profile, as an SVG any browser opens: the whole request's time by call
// path (BENCH_PROFILE=dir node dist/bench/hotpath.js writes one profile per server; node --cpu-prof
// writes one too). Each box is a function in one call path, as wide as the time spent in it and in
// what it called; the root at the bottom; idle time left out; hovering a box names it with its time.
// Boxes are coloured by where the code lives (bench/profile-top.ts's places).
//   node dist/bench/flamegraph.js file.cpuprofile > file.svg
import { readFileSync } from 'node:fs';
import { nameOf, placeOf, type Profile } from './profile-top.js';

const WIDTH = 1200;
const ROW = 16;
/** Boxes narrower than this (px) are left out with what they called: unreadable, and many. */
const NARROWEST = 0.3;

interface Box {
  readonly name: string;
  readonly place: string;
  self: number;
  total: number;
  readonly children: Map<string, Box>;
}

const newBox = (name: string, place: string): Box => ({ name, place, self: 0, total: 0, children: new Map() });

/** The profile's call tree with each node's self time, siblings of one name merged, idle left out. */
export function callTree(profile: Profile): Box {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const root = newBox('all', '');
  const visit = (id: number, into: Box): void => {
    const node = byId.get(id)!;
    for (const child of node.children ?? []) {
      const frame = byId.get(child)!.callFrame;
      if (frame.functionName === '(idle)') continue;
      const name = nameOf(frame);
      let box = into.children.get(name);
      if (!box) into.children.set(name, (box = newBox(name, placeOf(frame.url))));
      box.self += self.get(child) ?? 0;
      visit(child, box);
    }
  };
  const children = new Set(profile.nodes.flatMap((node) => node.children ?? []));
  visit(profile.nodes.find((node) => !children.has(node.id))!.id, root);
  totals(root);
  return root;
}

function totals(box: Box): number {
  box.total = box.self;
  for (const child of box.children.values()) box.total += totals(child);
  return box.total;
}

const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Warm for the service's own code, green for packages, blue for Node's, red for V8's (GC, native). */
function colourOf(place: string): string {
  if (place.endsWith('/')) return 'hsl(28,90%,62%)';
  if (place === 'node internals') return 'hsl(210,55%,70%)';
  if (place.startsWith('(')) return 'hsl(0,70%,66%)';
  return 'hsl(110,45%,60%)';
}

interface Placed {
  readonly box: Box;
  readonly x: number;
  readonly level: number;
  readonly width: number;
}

/** Every box wide enough to see, with its place: children left to right by name, above their caller. */
function layout(root: Box): Placed[] {
  const perUs = root.total > 0 ? WIDTH / root.total : 0;
  const placed: Placed[] = [];
  const place = (box: Box, x: number, level: number): void => {
    const width = box.total * perUs;
    if (width < NARROWEST) return;
    placed.push({ box, x, level, width });
    let at = x;
    for (const child of [...box.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      place(child, at, level + 1);
      at += child.total * perUs;
    }
  };
  place(root, 0, 0);
  return placed;
}

/** The SVG: the root's row at the bottom, each caller below what it called. */
export function flameGraph(profile: Profile, title = 'CPU profile'): string {
  const root = callTree(profile);
  const placed = layout(root);
  const height = (Math.max(0, ...placed.map((p) => p.level)) + 1) * ROW + 24;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="monospace" font-size="11">`,
    `<text x="4" y="14" font-size="13">${escaped(title)}: ${(root.total / 1e6).toFixed(2)} s busy, idle left out</text>`,
    ...placed.map((p) => boxSvg(p, height - (p.level + 1) * ROW, root.total)),
    '</svg>',
  ].join('\n');
}

function boxSvg({ box, x, width }: Placed, y: number, total: number): string {
  const share = ((100 * box.total) / total).toFixed(2);
  const label = width > 40 ? escaped(box.name.slice(0, Math.floor((width - 6) / 6.6))) : '';
  return (
    `<g><title>${escaped(box.name)}: ${(box.total / 1000).toFixed(1)} ms, ${share}%</title>` +
    `<rect x="${x.toFixed(2)}" y="${y}" width="${width.toFixed(2)}" height="${ROW - 1}" fill="${colourOf(box.place)}"/>` +
    (label ? `<text x="${(x + 3).toFixed(2)}" y="${y}" dy="11">${label}</text>` : '') +
    '</g>'
  );
}

if (process.argv[1]?.endsWith('flamegraph.js') && process.argv[2]) {
  process.stdout.write(flameGraph(JSON.parse(readFileSync(process.argv[2], 'utf8')) as Profile, process.argv[2]) + '\n');
}
