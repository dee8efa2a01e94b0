// The console's live stream is fed by the events outbox: which list each event or notice sends again.
import t from 'tap';
import { listsOf } from '../../../plugins/console/events.js';

t.test('listsOf: an outbox event or notice names the list it changes', async (t) => {
  const cases: [string, readonly string[]][] = [
    ['session.state.changed', ['sessions']],
    ['job.completed', ['jobs']],
    ['job.paused', ['jobs']],
    ['job.page', ['jobs']],
    ['webhook.delivery', ['webhooks']],
    ['direct.message.created', []],
    ['user.follower.added', []],
  ];
  for (const [type, lists] of cases) t.same(listsOf({ type }), lists, `${type} → ${lists.join(', ') || 'nothing'}`);
});
