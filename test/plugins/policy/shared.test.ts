// Two instances on one Redis, then one PostgreSQL, share a session's budgets: 10 + 10 likes sent
// at once through both against a limit of 12 admit exactly 12 (the counters' one atomic add per
// reservation, with batches of one near the limit), and both instances' GET /policy count 12.
import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { serve } from '../../helpers/http.js';
import { countingSandbox, patchPolicy, servedWithSession } from '../../helpers/policy.js';
import { onEachSharedStore } from '../../support/shared-servers.js';

const media = '3955340313237098052_5000000001';

async function shared(t: Test, url: string): Promise<void> {
  const config = testConfig({ store: url, policy: 'standard', sessionCacheTtlMs: 200, extra: { SESSION_KEY: randomBytes(32).toString('hex') } });
  const a = countingSandbox();
  const b = countingSandbox();
  const { http: one, as } = await servedWithSession(await composeApp(config, { upstream: a.upstream }));
  t.teardown(() => one.close());
  const two = await serve(await composeApp(config, { upstream: b.upstream }));
  t.teardown(() => two.close());
  await patchPolicy(one, as, { limits: { like: { minute: 12, hour: 12, day: 12 } } });
  const like = (on: typeof one) => on.request('POST', '/media/like', { form: { media_id: media }, headers: as });
  const replies = await Promise.all(Array.from({ length: 10 }, () => [like(one), like(two)]).flat());
  const admitted = replies.filter((reply) => reply.status === 200).length;
  const refused = replies.filter((reply) => reply.status === 429 && (reply.body as { exc_type?: string }).exc_type === 'ActionBudgetExceeded').length;
  t.equal(admitted, 12, 'exactly the limit admitted');
  t.equal(refused, 8, 'the rest refused by the budget');
  t.equal(a.calls.filter((m) => m === 'media_like').length + b.calls.filter((m) => m === 'media_like').length, 12, 'the platform saw 12 likes');
  for (const on of [one, two]) {
    const view = (await on.request('GET', '/policy', { headers: as })).body as { classes: { like: { used: Record<string, number> } } };
    t.same(view.classes.like.used, { minute: 12, hour: 12, day: 12 }, 'both instances count the same 12');
  }
}

onEachSharedStore("two instances share one session's like budget", (t, server) => shared(t, server.url));
