// keyv's storage adapter for PostgreSQL, on a pool of this store's own. @keyv/postgres keeps one pool
// per process in its module and adds no 'error' listener to it: when the server ends an idle
// connection (a restart, a failover, an administrator's kill) pg emits 'error' on that pool, Node
// throws it for want of a listener, and the whole service dies. Here the pool hears it (the next
// query opens a new connection and the failing call, or /ready, says what is wrong), and each store
// has its own pool, so closing one leaves the others running. The table is the one @keyv/postgres
// makes (key VARCHAR(255) PRIMARY KEY, value TEXT): existing data is read as it is.
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { listeningPool, schemaOnce } from './pg-client.js';

export interface PostgresLimits {
  /** Giving up on a connection that cannot be made, and on a query that does not answer. */
  readonly connectMs: number;
  readonly queryMs: number;
}

export class PostgresAdapter extends EventEmitter {
  /** keyv reads these: the dialect (for its iterator check) and the namespace it prefixes keys with. */
  readonly opts: { readonly dialect: 'postgres'; readonly url: string };
  namespace?: string;
  private readonly pool: pg.Pool;
  private readonly ensureTable: () => Promise<void>;

  constructor(
    url: string,
    private readonly name: string,
    limits: PostgresLimits,
  ) {
    super();
    this.opts = { dialect: 'postgres', url };
    this.pool = listeningPool({ connectionString: url, connectionTimeoutMillis: limits.connectMs, query_timeout: limits.queryMs });
    this.ensureTable = schemaOnce(() => this.pool.query(`CREATE TABLE IF NOT EXISTS ${name} (key VARCHAR(255) PRIMARY KEY, value TEXT)`));
  }

  /** One statement's rows; the table is made by the first statement that finds the server up. Bound: the store's pager and writer take it alone. */
  readonly query = async <Row = Record<string, string>>(sql: string, values?: readonly unknown[]): Promise<Row[]> => {
    await this.ensureTable();
    return (await this.pool.query(sql, values as unknown[])).rows as Row[];
  };

  async get(key: string): Promise<string | undefined> {
    const rows = await this.query<{ value: string }>(`SELECT value FROM ${this.name} WHERE key = $1`, [key]);
    return rows[0]?.value;
  }

  async getMany(keys: readonly string[]): Promise<(string | undefined)[]> {
    const rows = await this.query<{ key: string; value: string }>(`SELECT key, value FROM ${this.name} WHERE key = ANY($1)`, [keys]);
    const found = new Map(rows.map((row) => [row.key, row.value]));
    return keys.map((key) => found.get(key));
  }

  async set(key: string, value: string): Promise<void> {
    await this.query(`INSERT INTO ${this.name} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [key, value]);
  }

  async delete(key: string): Promise<boolean> {
    return (await this.query(`DELETE FROM ${this.name} WHERE key = $1 RETURNING key`, [key])).length > 0;
  }

  async has(key: string): Promise<boolean> {
    return (await this.query(`SELECT 1 FROM ${this.name} WHERE key = $1`, [key])).length > 0;
  }

  /** Only the namespace's rows: other services may share the table under their own. */
  async clear(): Promise<void> {
    await this.query(`DELETE FROM ${this.name} WHERE starts_with(key, $1)`, [`${this.namespace ?? ''}:`]);
  }

  async disconnect(): Promise<void> {
    await this.pool.end();
  }
}
