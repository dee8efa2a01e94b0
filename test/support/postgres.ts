// A throwaway PostgreSQL cluster for the store tests: Debian's server (installed by postgres.sh when
// missing), initdb'd into a temp folder and run in the foreground as a child of the test, on a free
// loopback port with trust authentication and no fsync. PostgreSQL refuses to run as root, so a
// root test runs it as the `postgres` system user the package creates.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chownSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, killOnExit, removeFolder, stopChild, tail, tempFolder, waitFor } from './process.js';
import { fromRoot } from '../helpers/root.js';

const run = promisify(execFile);

export interface Postgres {
  readonly url: string;
  /** One statement through psql; rows as lines, columns split by `|`. */
  sql(statement: string): Promise<string>;
  /** The postmaster's process id (to freeze it and its backends); a new one after resume(). */
  readonly pid: number;
  /** Shuts the server down (fast shutdown: clients are disconnected), keeping its data. */
  halt(): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

interface Account {
  readonly uid?: number;
  readonly gid?: number;
}

/** The folder of the server's programs, installing the package when missing; or why it cannot be had. */
export function installPostgres(): { bin: string } | { missing: string } {
  const script = fromRoot('test', 'support', 'postgres.sh');
  const result = spawnSync('sh', [script], { encoding: 'utf8', timeout: 600_000 });
  const bin = (result.stdout ?? '').trim().split('\n').pop() ?? '';
  if (result.status === 0 && bin) return { bin };
  const why = (result.stderr || result.error?.message || '').trim().slice(-500);
  return {
    missing:
      `no PostgreSQL server under /usr/lib/postgresql/*/bin and test/support/postgres.sh could not install ` +
      `Debian's postgresql with apt-get (exit ${result.status})${why ? `: ${why}` : ''}`,
  };
}

export async function startPostgres(bin: string): Promise<Postgres> {
  const account = serverAccount();
  const dir = tempFolder('socialgate-postgres-');
  try {
    if (account.uid !== undefined) chownSync(dir, account.uid, account.gid!);
    const data = join(dir, 'data');
    await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], {
      ...account,
      cwd: dir,
      env: { ...process.env, LC_ALL: 'C' },
    });
    const port = await freePort();
    const args = [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ];
    const isReady = () =>
      run(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)]).then(
        () => true,
        () => false,
      );
    const launch = async () => {
      const child = killOnExit(spawn(join(bin, 'postgres'), args, { ...account, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] }));
      await waitFor(`postgres on port ${port}`, isReady, child, tail(child.stderr), 20_000);
      return child;
    };
    let child = await launch();
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      get pid() {
        return child.pid!;
      },
      sql: async (statement) =>
        (
          await run(join(bin, 'psql'), [
            '-X',
            '-A',
            '-t',
            '-v',
            'ON_ERROR_STOP=1',
            '-h',
            '127.0.0.1',
            '-p',
            String(port),
            '-U',
            'postgres',
            '-d',
            'postgres',
            '-c',
            statement,
          ])
        ).stdout,
      async halt() {
        await stopChild(child, 'SIGINT', 10_000); // fast shutdown: clients are disconnected, not waited for
      },
      async resume() {
        child = await launch();
      },
      async stop() {
        await stopChild(child, 'SIGINT', 10_000);
        removeFolder(dir);
      },
    };
  } catch (error) {
    removeFolder(dir);
    throw error;
  }
}

/** Root runs the server as the `postgres` user; anyone else runs it as themselves. */
function serverAccount(): Account {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim() || NaN);
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new Error('running as root and there is no `postgres` user to run the server as (the postgresql package creates it)');
  return { uid, gid };
}
