// Reading a source back to its watermark: one poll of a single page loses a burst larger than the
// page (15 messages in one thread against 10 a thread, 25 requests against 20 threads a page).
// The inbox and the pending inbox are paged (most recent activity first) until a thread older than
// the mark; a changed thread whose page did not reach back to the mark has its messages read
// deeper. Bounded by the settings; a bound that cuts a read short is reported (`truncated`), never
// passed over in silence. The platform's paging, through the same routes the HTTP API serves.
import { timeOf, type WatchKind } from './sources.js';

/** One route run for the watched session (the engine's route runner: lane, governor, shaping). */
export type RouteRun = (route: string, params: Readonly<Record<string, string>>) => Promise<unknown>;

export interface ReachBounds {
  /** Pages of threads read at most per check and box. */
  readonly pages: number;
  /** Messages of one changed thread read at most per check. */
  readonly threadMessages: number;
}

export interface Reached {
  /** What the finder of the kind reads (threads for the direct kinds, the activity payload for notifications). */
  readonly result: unknown;
  /** A bound stopped the read before the mark: older new items may have been passed over. */
  readonly truncated: boolean;
}

type Rec = Record<string, unknown>;
const records = (value: unknown): Rec[] => (Array.isArray(value) ? value.filter((v): v is Rec => typeof v === 'object' && v !== null) : []);

/** Messages a thread carries in an inbox page: enough to tell whether a thread needs a deeper read. */
const PAGE_MESSAGES = 10;

/** When a thread was last active: the platform's field, else its newest message. */
function activityOf(thread: Rec): number {
  const given = timeOf(thread.last_activity_at);
  if (Number.isFinite(given)) return given;
  const times = records(thread.messages)
    .map((m) => timeOf(m.timestamp))
    .filter(Number.isFinite);
  return times.length ? Math.max(...times) : NaN;
}

/** The threads of a paged box active at or after the mark, newest first. */
async function threadsSince(
  run: RouteRun,
  route: string,
  params: Readonly<Record<string, string>>,
  mark: number,
  bounds: ReachBounds,
): Promise<{ threads: Rec[]; truncated: boolean }> {
  const threads: Rec[] = [];
  let cursor = '';
  for (let page = 0; page < bounds.pages; page++) {
    const answer = (await run(route, { ...params, cursor })) as { items?: unknown; next_cursor?: unknown };
    const items = records(answer?.items);
    const recent = items.filter((thread) => activityOf(thread) >= mark);
    threads.push(...recent);
    cursor = typeof answer?.next_cursor === 'string' ? answer.next_cursor : '';
    if (!cursor || recent.length < items.length || items.length === 0) return { threads, truncated: false };
  }
  return { threads, truncated: true };
}

/** A thread whose page carried only messages at or after the mark may have more: read it deeper. */
async function deepened(run: RouteRun, thread: Rec, mark: number, bounds: ReachBounds): Promise<{ thread: Rec; truncated: boolean }> {
  const shown = records(thread.messages);
  const reachesMark = (messages: Rec[]) => messages.length === 0 || messages.some((m) => !(timeOf(m.timestamp) >= mark));
  if (shown.length < PAGE_MESSAGES || reachesMark(shown)) return { thread, truncated: false };
  const messages = records(await run('GET /direct/messages', { thread_id: String(thread.id), amount: String(bounds.threadMessages) }));
  return { thread: { ...thread, messages }, truncated: messages.length >= bounds.threadMessages && !reachesMark(messages) };
}

async function inboxSince(run: RouteRun, mark: number, bounds: ReachBounds): Promise<Reached> {
  const box = await threadsSince(run, 'GET /direct/inbox', { thread_message_limit: String(PAGE_MESSAGES) }, mark, bounds);
  let truncated = box.truncated;
  const threads: Rec[] = [];
  for (const thread of box.threads) {
    const read = await deepened(run, thread, mark, bounds);
    threads.push(read.thread);
    truncated ||= read.truncated;
  }
  return { result: threads, truncated };
}

async function pendingSince(run: RouteRun, mark: number, bounds: ReachBounds): Promise<Reached> {
  const box = await threadsSince(run, 'GET /direct/pending', {}, mark, bounds);
  return { result: box.threads, truncated: box.truncated };
}

/** The activity inbox comes whole (new and old stories) in one answer. */
async function activity(run: RouteRun): Promise<Reached> {
  return { result: await run('GET /notifications', {}), truncated: false };
}

/** Each kind's read back to its mark. */
export const REACH: Readonly<Record<WatchKind, (run: RouteRun, mark: number, bounds: ReachBounds) => Promise<Reached>>> = {
  'direct.message.created': inboxSince,
  'direct.request.created': pendingSince,
  'notification.created': (run) => activity(run),
};

/** The routes the watcher reads (each must be in the manifest). */
export const REACH_ROUTES = ['GET /direct/inbox', 'GET /direct/messages', 'GET /direct/pending', 'GET /notifications'] as const;
