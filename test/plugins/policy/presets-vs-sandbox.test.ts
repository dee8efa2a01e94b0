// Issue 25, point 8: a client liking as fast as it can. Under every preset but `off` socialgate
// refuses it (429 ActionBudgetExceeded) before the sandbox's hidden like limit is ever met, so the
// platform never blocks the account; with `off` the sandbox blocks it (FeedbackRequired) and only
// likes freeze. The sandbox's limits are scaled to a tenth (demo's like limit 24 at seed 1) so each
// preset's run is a few dozen calls; the counts are printed for the closing note.
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { FIXED } from '../../../adapters/upstream/sandbox/index.js';
import { hiddenLimit } from '../../../adapters/upstream/sandbox/limits.js';
import { serve } from '../../helpers/http.js';

const media = '3955340313237098052_5000000001';
const SCALE = 0.1;
const TRIES = 60;
const sandboxLimit = hiddenLimit(1, FIXED.demo, 'like', SCALE);

/** Likes as fast as the answers come: what was admitted, refused by the policy, and blocked by the platform. */
async function likeHard(preset: string) {
  const app = await composeApp(testConfig({ logLevel: 'silent', policy: preset, extra: { SANDBOX_LIMIT_SCALE: String(SCALE) } }));
  const http = await serve(app);
  try {
    const session = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
    const as = { 'x-session-id': session };
    const counts = { admitted: 0, budget: 0, blocked: 0, frozen: 0, other: 0 };
    for (let i = 0; i < TRIES; i++) {
      const reply = await http.request('POST', '/media/like', { form: { media_id: media }, headers: as });
      const code = (reply.body as { exc_type?: string }).exc_type;
      if (reply.status === 200) counts.admitted++;
      else if (code === 'ActionBudgetExceeded') counts.budget++;
      else if (code === 'FeedbackRequired') counts.blocked++;
      else if (code === 'ActionFrozen') counts.frozen++;
      else counts.other++;
    }
    const follow = await http.request('POST', '/user/follow', { form: { user_id: FIXED.demo_2fa }, headers: as });
    return { counts, followStatus: follow.status };
  } finally {
    await http.close();
  }
}

t.test(`with off, the sandbox blocks after its like limit (${sandboxLimit}) and only likes freeze`, async (t) => {
  const { counts, followStatus } = await likeHard('off');
  t.comment(`off: ${JSON.stringify(counts)}`);
  t.equal(counts.admitted, sandboxLimit, 'the platform took likes up to its hidden limit');
  t.equal(counts.blocked, 1, 'then blocked the account for likes once');
  t.equal(counts.frozen, TRIES - sandboxLimit - 1, 'every later like refused by the freeze, never sent');
  t.equal(followStatus, 200, 'follows still work');
});

for (const preset of ['safe', 'standard', 'fast']) {
  t.test(`with ${preset}, socialgate refuses before the platform ever blocks`, async (t) => {
    const { counts, followStatus } = await likeHard(preset);
    t.comment(`${preset}: ${JSON.stringify(counts)}`);
    t.ok(counts.admitted >= 1 && counts.admitted < sandboxLimit, `${counts.admitted} admitted, under the platform's ${sandboxLimit}`);
    t.equal(counts.budget, TRIES - counts.admitted, 'every other like refused by the budget');
    t.equal(counts.blocked + counts.frozen + counts.other, 0, 'no platform block, no freeze');
    t.equal(followStatus, 200, 'follows are budgeted apart');
  });
}
