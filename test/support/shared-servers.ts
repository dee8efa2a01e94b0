// The two shared stores, as the multi-instance tests run against each: a throwaway redis-server,
// then a throwaway PostgreSQL (installed by the project's scripts when missing; a test fails with
// the reason when one cannot be had, it never passes silently).
import t, { type Test } from 'tap';
import { startRedis } from './redis.js';
import { installPostgres, startPostgres, type Postgres } from './postgres.js';
import { sleep } from './process.js';

export interface SharedServer {
  readonly url: string;
  /** The server's process id (to freeze it). */
  readonly pid: number;
  /** Shuts the server down keeping its data, and starts it again on the same port. */
  halt(): Promise<void>;
  resume(): Promise<void>;
}

export function onEachSharedStore(title: string, run: (t: Test, server: SharedServer) => Promise<void>): void {
  t.test(`${title} on Redis`, async (t) => {
    const redis = await startRedis();
    t.teardown(() => redis.stop());
    await run(t, redis);
  });
  t.test(`${title} on PostgreSQL`, async (t) => {
    const server = installPostgres();
    if ('missing' in server) return void t.fail(server.missing);
    const postgres = await startPostgres(server.bin);
    t.teardown(async () => {
      t.comment(`the scenario's connections closed in ${await untilNoClients(postgres)} ms`);
      await postgres.stop();
    });
    await run(t, postgres);
  });
}

/**
 * Waits (10 s at most) until no client is connected but this query's, so the cluster stops with no
 * client, as postgres.test.ts's does; the time is commented, so a connection an app's close left
 * open shows as a 10 s wait (BullMQ's LISTEN clients did: see noListenAfterClose).
 */
async function untilNoClients(postgres: Postgres): Promise<number> {
  const started = Date.now();
  const others = `SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`;
  while (Date.now() - started < 10_000) {
    const count = Number((await postgres.sql(others).catch(() => '0')).trim());
    if (!(count > 0)) break;
    await sleep(50);
  }
  return Date.now() - started;
}

/**
 * Several scenarios on one Redis and then on one PostgreSQL: one server start per kind instead of one
 * per scenario, each scenario in a database of its own on it (Redis: a numbered database; PostgreSQL:
 * a new one), so none sees what another stored.
 */
export function eachScenarioOnSharedStores(scenarios: readonly (readonly [string, (t: Test, server: SharedServer) => Promise<void>])[]): void {
  t.test('on Redis', async (t) => {
    const redis = await startRedis();
    t.teardown(() => redis.stop());
    for (const [i, [title, run]] of scenarios.entries()) await t.test(`${title} on Redis`, (t) => run(t, at(redis, `${redis.url}/${i + 1}`)));
  });
  t.test('on PostgreSQL', async (t) => {
    const server = installPostgres();
    if ('missing' in server) return void t.fail(server.missing);
    const postgres = await startPostgres(server.bin);
    t.teardown(() => postgres.stop());
    for (const [i, [title, run]] of scenarios.entries()) {
      await postgres.sql(`CREATE DATABASE scenario_${i + 1}`);
      await t.test(`${title} on PostgreSQL`, (t) => run(t, at(postgres, postgres.url.replace(/\/postgres$/, `/scenario_${i + 1}`))));
    }
  });
}

/** The server under another URL (another database on it). */
function at(server: SharedServer, url: string): SharedServer {
  return {
    url,
    get pid() {
      return server.pid;
    },
    halt: () => server.halt(),
    resume: () => server.resume(),
  };
}

/** How a store goes away and comes back, named for the test's comments. */
export interface Outage {
  readonly name: string;
  down(): Promise<void> | void;
  up(): Promise<void> | void;
}

/** The server stopped and started again; up again once, however often asked (a teardown asks again after the test has). */
export function stopped(server: SharedServer): Outage {
  let down = false;
  return {
    name: 'stopped',
    async down() {
      await server.halt();
      down = true;
    },
    async up() {
      if (down) await server.resume();
      down = false;
    },
  };
}
