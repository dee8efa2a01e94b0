// The jobs routes (manifest/jobs.yaml) and the start of the module that runs jobs: once per app it
// makes the Jobs and the Pools (the pools module's routes and X-Pool reads work on them), which the
// engine hands to the module's plugins.
import { serviceError } from './errors.js';
import { millisSetting } from '../../engine/config.js';
import { ownerOf } from '../../engine/owner.js';
import type { BudgetPeek, Plugin, PluginInput, Services } from '../../engine/types.js';
import { exportJob, type ExportFormat } from './export.js';
import { Pools } from '../pools/pools.js';
import { jobView, Jobs, type JobSettings } from './service.js';

/** A running app's jobs and the pools they spread pages over; undefined on an app without the background layer. */
export type JobsParts = { readonly jobs: Jobs; readonly pools: Pools } | undefined;

/** Defines the job work kind, makes the pools (choosing members with budget left by `budgets`), adds the gauges. */
export function startJobs(services: Services, budgets: BudgetPeek | undefined): JobsParts {
  if (!services.work) return undefined;
  const pools = new Pools(services.work.store, services.sessions, services.config.sessionCacheTtlMs, Date.now, () => budgets);
  const jobs = new Jobs({
    work: services.work,
    sessions: services.sessions,
    routes: services.routes,
    upstream: services.upstream,
    pools,
    log: services.log,
    settings: jobSettings(services.config.extra),
  });
  jobs.install();
  poolGauge(services, pools);
  return { jobs, pools };
}

/**
 * Pool members by state, by pool when /metrics is behind the key; an open /metrics (SOCIALGATE_METRICS_OPEN)
 * sums them over pools, since a pool's name is what X-Pool reads accept.
 */
function poolGauge(services: Services, pools: Pools): void {
  const named = !services.config.metricsOpen;
  services.app.gauge('socialgate_pool_members', 'Pool members by state (healthy, cooling, quarantined)', named ? ['pool', 'state'] : ['state'], async () => {
    const rows = await pools.census();
    if (named) return rows.map((row) => ({ labels: { pool: row.pool, state: row.state }, value: row.count }));
    const byState = new Map<string, number>();
    for (const row of rows) byState.set(row.state, (byState.get(row.state) ?? 0) + row.count);
    return [...byState].map(([state, value]) => ({ labels: { state }, value }));
  });
}

export function jobSettings(extra: Readonly<Record<string, string>>): JobSettings {
  return { intervalMs: millisSetting(extra, 'JOB_INTERVAL_MS', 2000, 0, 86_400_000), recheckMs: millisSetting(extra, 'JOB_RECHECK_MS', 60_000, 0, 86_400_000) };
}

/** The app's jobs and pools, or 503 when the instance runs no background layer. */
export function running(found: JobsParts): NonNullable<JobsParts> {
  if (!found) throw serviceError('JobsUnavailable', 'Background work is not available on this instance');
  return found;
}

const plugin = (handle: (input: PluginInput<JobsParts>) => Promise<unknown>): Plugin<JobsParts> => ({ uses: [], handle });
const text = (input: PluginInput<JobsParts>, name: string): string | undefined => {
  const value = input.input[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

export const jobPlugins: Readonly<Record<string, Plugin<JobsParts>>> = Object.freeze({
  'jobs.kinds': plugin(async (input) =>
    [...running(input.parts).jobs.kinds.values()].map((k) => ({
      route: k.route.key,
      cursor_param: k.cursorParam,
      key: k.keyField ?? null,
      columns: k.columns,
    })),
  ),

  'jobs.create': plugin(async (input) => {
    const pool = text(input, 'pool');
    if (!pool && !input.session)
      throw serviceError('SessionRequired', 'A job needs a session (X-Session-ID) or a pool', { hint: 'Send X-Session-ID, or name a pool in `pool`.' });
    const { jobs, pools } = running(input.parts);
    if (pool) await pools.view(pool, input.caller); // 404 for a pool the caller may not read through
    const route = String(input.input.route).includes(' ') ? String(input.input.route) : `GET ${input.input.route}`;
    const job = await jobs.create({
      route,
      params: (input.input.params ?? {}) as Record<string, unknown>,
      limit: Number(input.input.limit ?? 0),
      session: input.session,
      pool,
      owner: ownerOf(input.caller),
    });
    return jobView(job);
  }),

  'jobs.list': plugin(async (input) => {
    const pool = text(input, 'pool');
    if (!pool && !input.session) throw serviceError('SessionRequired', 'Name a session (X-Session-ID) or a pool to list its jobs');
    const { jobs, pools } = running(input.parts);
    if (pool) await pools.view(pool, input.caller);
    return (await jobs.list(pool ? { pool } : { pk: input.session!.account.pk }, input.caller)).map((job) => jobView(job));
  }),

  'jobs.status': plugin(async (input) => jobView(await running(input.parts).jobs.get(String(input.input.id), input.caller))),

  'jobs.results': plugin(async (input) => {
    const { jobs } = running(input.parts);
    const id = String(input.input.id);
    const job = await jobs.get(id, input.caller);
    return exportJob({
      store: input.services.work!.store,
      job,
      kind: jobs.kindFor(job.route),
      format: input.input.format as ExportFormat,
      follow: input.input.follow === true,
      current: () => jobs.get(id),
      signal: input.signal,
    });
  }),

  'jobs.cancel': plugin(async (input) => jobView(await running(input.parts).jobs.cancel(String(input.input.id), input.caller))),
});
