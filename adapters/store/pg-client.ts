// pg's client for every pool of the service (the session store's, the leases', the work store's and
// BullMQ's). When the server ends a connection (a restart, a failover, an administrator's kill), pg
// emits 'error' on its client; while the client is checked out of its pool nobody listens, Node
// throws the event, and the whole service dies. This client always listens. Nothing is lost by it:
// the query that was running rejects on its own, and the pool drops a broken client when it comes
// back, so the next query connects anew.
import pg from 'pg';

export class ListeningClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

/**
 * A pool of listening clients that hears its idle clients' errors too (a lost idle connection is
 * dropped by the pool, and the next query connects anew): every pool the service makes itself.
 */
export function listeningPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool({ ...config, Client: ListeningClient });
  pool.on('error', () => undefined); // surfaced by the failing call and ready()
  return pool;
}

const ignore = (): void => undefined;
let heard = false;

/** Once per client: EventEmitter's removeAllListeners() calls itself again for each event. */
function hear(client: pg.Client): void {
  if (!client.listeners('error').includes(ignore)) client.on('error', ignore);
}

/**
 * BullMQ's PostgreSQL connection makes its LISTEN client from pg's own Client (not the one above).
 * Twice it leaves that client unheard, and a server ending the connection then (stopped, restarted,
 * an administrator's kill) emits 'error' with nobody listening: Node throws it and the process dies.
 * - Its listener comes only after the connect resolves. A server shutting down as the connection
 *   became ready sends its FATAL in the same read as the ready (a busy process reads both at once),
 *   and pg emits it before that continuation runs. So a pg client listens from its connect on.
 * - Its close removes every listener before ending the client (the app's close does not wait for
 *   BullMQ's without bound). So once a client's listeners are all removed, it keeps one.
 * The listener ignores errors: the call that was running rejects on its own, and BullMQ's own
 * listener, when it comes, still hears them. pg itself never removes all of a client's listeners;
 * this is the one place the service changes a library's class, and it is idempotent.
 */
export function keepClientErrorsHeard(): void {
  if (heard) return;
  heard = true;
  const proto = pg.Client.prototype;
  const connect = proto.connect as (this: pg.Client, ...args: unknown[]) => unknown;
  proto.connect = function (this: pg.Client, ...args: unknown[]) {
    hear(this);
    return connect.apply(this, args);
  } as typeof proto.connect;
  const removeAll = proto.removeAllListeners;
  proto.removeAllListeners = function (this: pg.Client, event?: string | symbol) {
    removeAll.call(this, event);
    if (event === undefined || event === 'error') hear(this);
    return this;
  };
}

/**
 * Two instances creating the same table at one moment: the loser meets a unique violation on the
 * catalogue (23505), "relation already exists" (42P07) or "object already exists" (42710, seen when
 * two instances started together on an empty server in a full test run).
 */
export const RACED = new Set(['23505', '42P07', '42710']);

/**
 * Runs a schema's idempotent DDL (CREATE ... IF NOT EXISTS) once it succeeds, for every caller to
 * await. A create that lost a race with another instance runs again (the statements after the one
 * that failed have not run yet); any other failure (the server down at start) is not remembered,
 * so the next caller tries again instead of failing until a restart.
 */
export function schemaOnce(create: () => Promise<unknown>): () => Promise<void> {
  let made: Promise<void> | undefined;
  const attempt = async (tries: number): Promise<void> => {
    try {
      await create();
    } catch (error) {
      if (tries > 1 && RACED.has((error as { code?: string }).code ?? '')) return attempt(tries - 1);
      throw error;
    }
  };
  return () => {
    made ??= attempt(3).catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}
