// `socialgate webhooks list|add|remove` and `socialgate events tail`: clients of a running
// service's /webhooks and /events routes.
//   webhooks list                                  one endpoint a line (id, url, kinds, state)
//   webhooks add URL [--kind TYPE]... [--for SESSION]... [--description TEXT]   prints the id and the secret (shown once)
//   webhooks remove ID
//   events tail [--types TYPE,...] [--from N]      a live view of the session's (--session) events
import { client, json, parseArgs } from './remote.js';

export interface EventsIo {
  readonly out: NodeJS.WritableStream;
  readonly err: (text: string) => void;
  /** Ends `events tail` (the terminal's Ctrl-C otherwise). */
  readonly signal?: AbortSignal;
}

const WEBHOOKS_USAGE = `usage: socialgate webhooks list
       socialgate webhooks add URL [--kind TYPE,...] [--for SESSION,...] [--description TEXT]
       socialgate webhooks remove ID
options: --url URL (default http://127.0.0.1:8000)  --api-key KEY
`;
const EVENTS_USAGE = `usage: socialgate events tail --session ID [--types TYPE,...] [--from N]
options: --url URL (default http://127.0.0.1:8000)  --api-key KEY
`;

type Endpoint = { id: string; url: string; kinds: string[]; sessions: string[]; disabled: string | null; secret?: string };

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

export async function runWebhooks(argv: readonly string[], io: EventsIo): Promise<number> {
  const [action, ...rest] = argv;
  const { flags, positional } = parseArgs(rest, ['--kind', '--for', '--description']);
  const api = client(flags);
  if (action === 'list') {
    const endpoints = await json<Endpoint[]>(await api('GET', '/webhooks'));
    if (!endpoints.length) io.out.write('No webhook endpoints. Add one with: socialgate webhooks add URL\n');
    for (const e of endpoints) {
      io.out.write(
        [
          e.id,
          e.url,
          e.kinds.length ? e.kinds.join(',') : 'all events',
          e.sessions.length ? `${e.sessions.length} session(s)` : 'all sessions',
          e.disabled ? `disabled: ${e.disabled}` : 'on',
        ].join('\t') + '\n',
      );
    }
    return 0;
  }
  if (action === 'add' && positional[0]) {
    const form = { url: positional[0], kinds: list(flags.get('--kind')), sessions: list(flags.get('--for')), description: flags.get('--description') ?? '' };
    const created = await json<Endpoint>(await api('POST', '/webhooks', form));
    io.out.write(`${created.id}\n${created.secret}\n`);
    io.err('The secret is shown this once: keep it to verify the webhook-signature header.\n');
    return 0;
  }
  if (action === 'remove' && positional[0]) {
    await json(await api('DELETE', `/webhooks?id=${encodeURIComponent(positional[0])}`));
    return 0;
  }
  io.err(WEBHOOKS_USAGE);
  return 2;
}

export async function runEvents(argv: readonly string[], io: EventsIo): Promise<number> {
  const [action, ...rest] = argv;
  const { flags } = parseArgs(rest, ['--types', '--from']);
  if (action !== 'tail' || !flags.has('--session')) {
    io.err(EVENTS_USAGE);
    return 2;
  }
  const query = new URLSearchParams();
  for (const type of list(flags.get('--types'))) query.append('types', type);
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (flags.has('--from')) headers['last-event-id'] = flags.get('--from')!;
  const response = await fetch(new URL(`/events?${query}`, flags.get('--url') ?? 'http://127.0.0.1:8000'), {
    headers: { ...headers, 'x-session-id': flags.get('--session')!, ...(flags.has('--api-key') ? { 'x-api-key': flags.get('--api-key')! } : {}) },
    signal: io.signal,
  });
  if (!response.ok || !response.body) throw new Error(`${response.status}: ${await response.text()}`);
  io.err(`listening to the session's events${flags.has('--from') ? ` after ${flags.get('--from')}` : ''} (Ctrl-C ends)\n`);
  try {
    await tail(response.body, io);
  } catch (error) {
    if (!io.signal?.aborted) throw error;
  }
  return 0;
}

/** One line an event: its log position, time, type and a summary of its data. */
async function tail(body: ReadableStream<Uint8Array>, io: EventsIo): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const frame = parseFrame(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
      if (frame.data) io.out.write(eventLine(frame.id ?? '', JSON.parse(frame.data)) + '\n');
    }
  }
}

function parseFrame(block: string): Record<string, string> {
  const frame: Record<string, string> = {};
  for (const line of block.split('\n')) {
    const at = line.indexOf(':');
    if (at > 0) frame[line.slice(0, at)] = line.slice(at + 1).trim();
  }
  return frame;
}

export function eventLine(seq: string, event: { type: string; timestamp: string; data: Record<string, unknown> }): string {
  const d = event.data;
  const who = (x: unknown) => (x && typeof x === 'object' ? String((x as { username?: unknown; pk?: unknown }).username ?? (x as { pk?: unknown }).pk) : '');
  const summary: Record<string, () => string> = {
    'direct.message.created': () => `from ${who(d.sender)} in ${d.thread_id}: ${d.text ?? `(${d.item_type})`}`,
    'direct.request.created': () => `request from ${((d.from as unknown[]) ?? []).map(who).join(', ')}: ${d.text ?? ''}`,
    'notification.created': () => `${d.kind} by ${who(d.actor)}${d.text ? `: ${d.text}` : ''}`,
    'session.state.changed': () =>
      d.action
        ? `${d.action} frozen until ${d.frozen_until} (${d.reason})`
        : `${d.from} → ${d.to} (${d.reason})${d.throttled_until ? ` until ${d.throttled_until}` : ''}`,
    'write.completed': () => `${d.kind ?? 'scheduled'} write ${d.write_id} ran: ${d.route}${d.idempotency_key ? ` (key ${d.idempotency_key})` : ''}`,
    'write.failed': () => `${d.kind ?? 'scheduled'} write ${d.write_id} failed: ${d.route} ${(d.error as { exc_type?: string } | undefined)?.exc_type ?? ''}`,
  };
  const text = summary[event.type]?.() ?? `${d.job_id ? `job ${d.job_id} ` : ''}${JSON.stringify(d)}`;
  return `${seq.padStart(5)}  ${event.timestamp}  ${event.type.padEnd(22)}  ${text}`;
}
