// The jobs and pools routes (manifest/jobs.yaml, manifest/pools.yaml) and the background module
// that runs jobs. The module is installed once per app (bin/compose.ts lists it); the plugins find
// its Jobs and Pools through the app's services.
import { serviceError } from './errors.js';
import { millisSetting } from '../../engine/config.js';
import { ownerOf } from '../../engine/owner.js';
import type { Plugin, PluginInput, Services } from '../../engine/types.js';
import { exportJob, type ExportFormat } from './export.js';
import { Pools } from '../pools/pools.js';
import { jobView, Jobs, type JobSettings } from './service.js';

const installed = new WeakMap<Services, { jobs: Jobs; pools: Pools }>();

/** The background module: defines the job work kind, keeps the pools (X-Pool reads find them here), adds the gauges. */
export function installJobs(services: Services): void {
  if (!services.work) return;
  const pools = new Pools(services.work.store, services.sessions, services.config.sessionCacheTtlMs, Date.now, () => services.budgets);
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
  installed.set(services, { jobs, pools });
  poolGauge(services, pools);
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

/** The app's jobs and pools, when its background layer runs them (the console reads them too). */
export function jobsOf(services: Services): { jobs: Jobs; pools: Pools } | undefined {
  return installed.get(services);
}

/** The app's jobs and pools, or 503 when the instance runs no background layer. */
export function parts(services: Services): { jobs: Jobs; pools: Pools } {
  const found = installed.get(services);
  if (!found) throw serviceError('JobsUnavailable', 'Background work is not available on this instance');
  return found;
}

const plugin = (handle: (input: PluginInput) => Promise<unknown>): Plugin => ({ uses: [], handle });
const text = (input: PluginInput, name: string): string | undefined => {
  const value = input.input[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

export const jobPlugins: Readonly<Record<string, Plugin>> = Object.freeze({
  'jobs.kinds': plugin(async ({ services }) =>
    [...parts(services).jobs.kinds.values()].map((k) => ({ route: k.route.key, cursor_param: k.cursorParam, key: k.keyField ?? null, columns: k.columns })),
  ),

  'jobs.create': plugin(async (input) => {
    const pool = text(input, 'pool');
    if (!pool && !input.session)
      throw serviceError('SessionRequired', 'A job needs a session (X-Session-ID) or a pool', { hint: 'Send X-Session-ID, or name a pool in `pool`.' });
    const { jobs, pools } = parts(input.services);
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
    const { jobs, pools } = parts(input.services);
    if (pool) await pools.view(pool, input.caller);
    return (await jobs.list(pool ? { pool } : { pk: input.session!.account.pk }, input.caller)).map((job) => jobView(job));
  }),

  'jobs.status': plugin(async (input) => jobView(await parts(input.services).jobs.get(String(input.input.id), input.caller))),

  'jobs.results': plugin(async (input) => {
    const { jobs } = parts(input.services);
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

  'jobs.cancel': plugin(async (input) => jobView(await parts(input.services).jobs.cancel(String(input.input.id), input.caller))),
});
