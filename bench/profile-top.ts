// Summarises a V8 CPU profile (BENCH_PROFILE=dir node dist/bench/hotpath.js writes one per server,
// node --cpu-prof writes one too): the top frames by self time, self time by where the code lives, and the total
// (inclusive) time of the service's own frames. Idle time is left out of every share.
//   node dist/bench/profile-top.js file.cpuprofile [frames=25]
import { readFileSync } from 'node:fs';

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
export interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: number[];
}
export interface Profile {
  readonly nodes: ProfileNode[];
  readonly samples: number[];
  readonly timeDeltas: number[];
}

/** Where a frame's code lives: our own folders, a package by name, node's internals or V8's. */
export function placeOf(url: string): string {
  if (!url) return '(native, GC, program)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node internals';
  const own = /\/dist\/([^/]+)\//.exec(url);
  return own ? own[1] + '/' : url;
}

export const nameOf = (frame: CallFrame) =>
  `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${frame.lineNumber + 1}`;
const isOwn = (frame: CallFrame) => /\/dist\/(engine|plugins|adapters|bin)\//.test(frame.url);

function add(map: Map<string, number>, key: string, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

export function topFrames(profile: Profile, count: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const places = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const us = profile.timeDeltas[i] ?? 0;
    total += us;
    add(self, nameOf(frame), us);
    add(places, placeOf(frame.url), us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const up = byId.get(at)!.callFrame;
      if (isOwn(up) && !seen.has(nameOf(up))) seen.add(nameOf(up));
    }
    for (const key of seen) add(inclusive, key, us);
  });
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  const rows = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, us]) => `${pct(us)}  ${key}`);
  return [
    `${(total / 1e6).toFixed(1)} s busy (idle left out)`,
    'self time by frame:',
    ...rows(self, count),
    'self time by place:',
    ...rows(places, 12),
    "total time of the service's own frames:",
    ...rows(inclusive, count),
  ].join('\n');
}

if (process.argv[1]?.endsWith('profile-top.js') && process.argv[2]) {
  process.stdout.write(topFrames(JSON.parse(readFileSync(process.argv[2], 'utf8')) as Profile, Number(process.argv[3] ?? 25)) + '\n');
}
