// `socialgate sessions policy PREFIX`: a session's budgets as GET /policy shows them, read from the
// store the environment names (the counters every instance shares), for operators at a terminal.
import type { Config, SessionRecord } from '../../engine/types.js';
import { policyView } from './index.js';
import { Policy } from './policy.js';
import { WINDOWS } from './presets.js';

type Out = (text: string) => void;
type ClassView = { limits: Record<string, number>; used: Record<string, number>; resets: Record<string, string> };
type View = {
  preset: string;
  service_preset: string;
  classes: Record<string, ClassView>;
  window: Record<string, unknown> | null;
  warmup: Record<string, unknown>;
  frozen: Record<string, string>;
};

export async function printPolicy(record: SessionRecord, config: Config, out: Out): Promise<void> {
  const policy = new Policy(config, Date.now);
  try {
    const view = (await policyView(policy, record)) as View;
    out(`preset ${view.preset} (service: ${view.service_preset})\n`);
    out(`window ${windowLine(view.window)}\n`);
    out(`warm-up day ${view.warmup.day} of ${view.warmup.days}: ${Math.round(Number(view.warmup.fraction) * 100)} % of the preset's write budgets\n`);
    out(['CLASS', ...WINDOWS.map((w) => `${w.toUpperCase()} USED/LIMIT`), 'FROZEN UNTIL'].join('\t') + '\n');
    for (const [cls, one] of Object.entries(view.classes)) {
      const cells = WINDOWS.map((w) => `${one.used[w]}/${one.limits[w] ?? '-'}`);
      out([cls, ...cells, view.frozen[cls] ?? '-'].join('\t') + '\n');
    }
  } finally {
    await policy.close();
  }
}

/** The activity window as one line: its hours, the session's offset, open or when it opens. */
function windowLine(window: View['window']): string {
  if (!window) return 'none';
  const state = window.open ? 'open' : `opens ${window.opens_at}`;
  return `${window.start}-${window.end} (UTC offset ${window.timezone_offset} s), ${state}`;
}
