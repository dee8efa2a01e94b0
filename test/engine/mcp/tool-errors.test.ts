// Tool errors reach every client: the SDK 1.x client (which validates structured content against
// the tool's output schema and used to throw -32602 on every error) and the current generation on
// both protocols get each error kind as a tool error whose text carries exc_type, detail and hint,
// with no structured content beside it. Error kinds: validation, not found, no session (missing and
// unknown), throttled, upstream unavailable, a write that needs a confirmation the client cannot
// give, and a budget the account-safety policy says is spent (a session whose like class allows 0).
import t from 'tap';
import { FIXED } from '../../../adapters/upstream/sandbox/index.js';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { UpstreamError, type UpstreamAdapter, type UpstreamClient } from '../../../engine/types.js';
import { createSandbox } from '../../../adapters/upstream/sandbox/index.js';
import { serve } from '../../helpers/http.js';
import { GENERATIONS, type AnyClient } from '../../helpers/mcp.js';

/** The sandbox, with a switch that makes every platform call fail as an unreachable platform does. */
function switchableSandbox(): { upstream: UpstreamAdapter; down: (is: boolean) => void } {
  const sandbox = createSandbox({ seed: 1 });
  let unreachable = false;
  const cut = (client: UpstreamClient): UpstreamClient =>
    new Proxy(client, {
      get(target, prop) {
        if (prop === 'call' && unreachable)
          return () => Promise.reject(new UpstreamError('ClientConnectionError', 'ConnectionRefusedError: the platform could not be reached (test)'));
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const upstream = new Proxy(sandbox, {
    get(target, prop) {
      if (prop === 'open') return async (options: Parameters<UpstreamAdapter['open']>[0]) => cut(await target.open(options));
      return Reflect.get(target, prop) as unknown;
    },
  });
  return { upstream, down: (is) => (unreachable = is) };
}

const { upstream, down } = switchableSandbox();
const app = await composeApp(testConfig({ logLevel: 'silent' }), { upstream });
const http = await serve(app);
t.teardown(() => http.close());
const login = async (username: string) => (await http.request('POST', '/auth/login', { form: { username, password: 'demo-password' } })).body as string;
const demo = await login('demo');
const throttled = await login('demo_throttled');
const spent = await login('demo');
const policy = await http.request('PATCH', '/policy', {
  form: { preset: 'standard', limits: JSON.stringify({ like: { minute: 0, hour: 0, day: 0 } }) },
  headers: { 'x-session-id': spent },
});
if (policy.status !== 200) throw new Error(`PATCH /policy: ${policy.status} ${policy.text}`);

interface Kind {
  readonly name: string;
  readonly headers: Record<string, string>;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly expect: { status: number; exc_type: string | RegExp };
  readonly before?: () => void;
  readonly after?: () => void;
}

const KINDS: readonly Kind[] = [
  {
    name: 'validation',
    headers: { 'x-session-id': demo },
    tool: 'getUserFollowers',
    args: { user_id: FIXED.demo, amount: 1000 },
    expect: { status: 422, exc_type: 'ValidationError' },
  },
  {
    name: 'not found',
    headers: { 'x-session-id': demo },
    tool: 'getUser',
    args: { username: 'no_such_user_here' },
    expect: { status: 404, exc_type: 'UserNotFound' },
  },
  { name: 'no session', headers: {}, tool: 'getAccount', args: {}, expect: { status: 401, exc_type: 'SessionRequired' } },
  {
    name: 'unknown session',
    headers: { 'x-session-id': 'not-a-session-of-this-service' },
    tool: 'getAccount',
    args: {},
    expect: { status: 401, exc_type: 'SessionNotFound' },
  },
  {
    name: 'throttled',
    headers: { 'x-session-id': throttled },
    tool: 'getAccount',
    args: {},
    expect: { status: 429, exc_type: /PleaseWaitFewMinutes|SessionThrottled/ },
  },
  {
    name: 'upstream unavailable',
    headers: { 'x-session-id': demo },
    tool: 'getUser',
    args: { username: 'demo' },
    expect: { status: 502, exc_type: 'ClientConnectionError' },
    before: () => down(true),
    after: () => down(false),
  },
  {
    name: 'budget exceeded',
    headers: { 'x-session-id': spent },
    tool: 'postMediaLike',
    args: { media_id: '3955340313237098052_5000000001' },
    expect: { status: 429, exc_type: 'ActionBudgetExceeded' },
  },
  {
    name: 'confirmation required',
    headers: { 'x-session-id': demo },
    tool: 'postUserFollow',
    args: { user_id: FIXED.demo },
    expect: { status: 403, exc_type: 'ConfirmationRequired' },
  },
];

interface Answer {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
}

for (const [generation, connect] of Object.entries(GENERATIONS)) {
  t.test(`${generation}: every error kind is a tool error the client reads`, async (t) => {
    const clients = new Map<string, AnyClient>();
    t.teardown(() => Promise.all([...clients.values()].map((client) => client.close())));
    const clientFor = async (headers: Record<string, string>): Promise<AnyClient> => {
      const key = JSON.stringify(headers);
      if (!clients.has(key)) clients.set(key, await connect(http.url, headers));
      return clients.get(key)!;
    };
    for (const kind of KINDS) {
      const client = await clientFor(kind.headers);
      kind.before?.();
      let answer: Answer;
      try {
        answer = (await client.callTool({ name: kind.tool, arguments: kind.args })) as Answer;
      } finally {
        kind.after?.();
      }
      t.equal(answer.isError, true, `${kind.name}: a tool error, not a thrown protocol error`);
      t.equal(answer.structuredContent, undefined, `${kind.name}: no structured content to fail the output schema`);
      const text = answer.content.find((part) => part.type === 'text')?.text ?? '';
      const body = JSON.parse(text) as Record<string, unknown>;
      t.match(body, { status: kind.expect.status, exc_type: kind.expect.exc_type, detail: String }, `${kind.name}: exc_type and detail in the text`);
      t.type(body.hint, 'string', `${kind.name}: with a hint`);
    }
    // Success still carries structured content that the SDK 1.x validates against the output schema.
    const ok = (await (await clientFor({ 'x-session-id': demo })).callTool({ name: 'getUser', arguments: { username: 'demo' } })) as Answer;
    t.notOk(ok.isError);
    t.match(ok.structuredContent, { pk: FIXED.demo }, 'a success keeps its structured content');
  });
}
