// Sessions over several sidecars through the engine: every session is served by one process from
// its login on, across reopenings (a client cache of one evicts on every request), and the key
// the engine names a session by is its account pk, never its session id.
import t from 'tap';
import { productParts } from '../../../../bin/compose.js';
import { createApp } from '../../../../engine/app.js';
import { testConfig } from '../../../../engine/config.js';
import { createLogger } from '../../../../engine/log.js';
import type { UpstreamAdapter } from '../../../../engine/types.js';
import { createStore } from '../../../../adapters/store/keyv.js';
import { serve } from '../../../helpers/http.js';
import { standInAdapter } from '../../../helpers/sidecar.js';

const PKS = ['5000000001', '5000000002', '5000000003', '5000000101', '5000000102'];

t.test('a session keeps its sidecar from login through every reopening', async (t) => {
  const sidecars = standInAdapter(t, { processes: 3 });
  const keys: (string | undefined)[] = [];
  const upstream: UpstreamAdapter = {
    name: sidecars.name,
    get library() {
      return sidecars.library;
    },
    describe: () => sidecars.describe!(),
    open: (options) => {
      keys.push(options.sessionKey);
      return sidecars.open(options);
    },
    ready: () => sidecars.ready(),
    close: () => sidecars.close(),
  };
  const config = testConfig({ upstream: 'aiograpi', cacheSize: 1 });
  const app = createApp({ config, upstream, store: await createStore('memory://'), ...productParts(config), log: createLogger('silent') });
  const http = await serve(app);
  t.teardown(() => http.close());

  const sessions = new Map<string, string>();
  const served = new Map<string, Set<number>>(PKS.map((pk) => [pk, new Set()]));
  const whoami = async (pk: string) => {
    const reply = await http.request('GET', '/user', { query: { user_id: 'whoami' }, headers: { 'X-Session-ID': sessions.get(pk)! } });
    t.equal(reply.status, 404, 'the whoami hook answers');
    served.get(pk)!.add(Number(/pid (\d+)/.exec(String((reply.body as { detail?: string }).detail))?.[1]));
  };
  for (const pk of PKS) {
    const login = await http.request('POST', '/auth/login/by/sessionid', { form: { sessionid: `${pk}%3AstandIn%3A1` } });
    t.equal(login.status, 200, `${pk} logs in`);
    sessions.set(pk, login.body as string);
    await whoami(pk); // still on the client that logged in
  }
  for (let round = 0; round < 3; round++) for (const pk of PKS) await whoami(pk); // each one reopened
  const pids = sidecars.pids();
  for (const [pk, set] of served) {
    t.equal(set.size, 1, `${pk}: one sidecar for the login and every reopening (${[...set].join(', ')})`);
    t.ok(pids.includes([...set][0]), `${pk}: a live sidecar`);
  }
  t.ok(new Set([...served.values()].map((s) => [...s][0])).size > 1, 'the sessions spread over the sidecars');
  t.ok(keys.filter(Boolean).length >= PKS.length * 2, `reopenings happened, each named (${keys.length} opens)`);
  for (const key of keys.filter(Boolean)) t.ok(PKS.includes(key!), `the session key is an account pk (${key})`);
  for (const sid of sessions.values()) t.notOk(keys.includes(sid), 'never the session id');
});
