// biome-ignore-all lint/performance/useDomNodeTextContent: the page's rendered text (innerText) is what an operator reads
// The operator's keys and agents in a real browser (Debian's chromium through playwright-core): the
// console opened with a named operator key (a key without the scope is refused), named keys added
// (the key shown once, with its scopes and account limit, and working as added) and revoked, the
// MCP audit view, the app-profile upgrade of a session (its ID kept), and a revoked console key
// closing the page's access. Each step waits for the state it checks, never for a time.
import t from 'tap';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS, withChromium } from '../../support/browser.js';
import { product } from '../../helpers/full-app.js';
import type { R } from '../../helpers/session-http.js';
import { sessionRef } from '../../../engine/session-record.js';

const KEY = 'console-keys-browser-key-0123456789';
await withChromium('console keys browser test', run);

async function run(): Promise<void> {
  const p = await product({ apiKey: KEY });
  t.teardown(() => p.client.close());
  const api = (method: string, path: string, key = KEY, options: Parameters<typeof p.client.request>[2] = {}) =>
    p.client.request(method, path, { ...options, headers: { 'x-api-key': key, ...options.headers } });
  const made = async (name: string, scopes: string[]) => ((await api('POST', '/keys', KEY, { form: { name, scopes } })).body as R).key as string;
  const login = async () => (await api('POST', '/auth/login', KEY, { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const ops = await made('ops', ['operator']);
  const reader = await made('reader', ['read']);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(8000);
  const page = await context.newPage();

  t.test('a named key opens the console only with the operator scope', async (t) => {
    await page.goto(`${p.client.url}/console`);
    const field = page.getByLabel('API key');
    await field.fill(reader);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('alert').filter({ hasText: 'needs the "operator" scope' }).waitFor();
    t.pass('a read key is refused, naming the scope');
    await field.fill(ops);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor();
    t.pass('the operator key opens it');
  });

  t.test('keys: listed, added (shown once, limits kept, working) and revoked', async (t) => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.locator('tr[data-key="reader"]').waitFor();
    t.match(await page.locator('tr[data-key="ops"]').innerText(), /operator/);
    await page.getByLabel('Name', { exact: true }).fill('agent-1');
    await page.getByLabel(/^read:/).check();
    await page.getByLabel(/^write:/).check();
    await page.getByLabel(/Only these accounts/).fill('demo, demo_2fa');
    await page.getByRole('button', { name: 'Add key' }).click();
    const shown = page.locator('[data-new-key]');
    await shown.waitFor();
    const key = await shown.innerText();
    t.match(key, /^sgk_[\w-]{43}$/, 'the new key, shown');
    const row = page.locator('tr[data-key="agent-1"]');
    await row.waitFor();
    t.match(await row.innerText(), /read, write[\s\S]*demo, demo_2fa/, 'its scopes and accounts in the list');
    t.equal((await api('GET', '/keys', key)).status, 403, 'the key works, within its scopes (no operator)');
    const session = await login();
    t.equal((await api('GET', '/account', key, { headers: { 'x-session-id': session } })).status, 200, 'and reads for an account it names');
    await page.getByRole('button', { name: 'I have kept it' }).click();
    await shown.waitFor({ state: 'detached' });
    t.notOk((await page.content()).includes(key), 'then it is gone from the page: shown once');
    await row.getByRole('button', { name: 'Revoke agent-1' }).click();
    await page.getByRole('button', { name: 'Yes, revoke agent-1' }).click();
    await row.waitFor({ state: 'detached' });
    t.equal((await api('GET', '/account', key, { headers: { 'x-session-id': session } })).status, 401, 'revoked: it opens nothing');
  });

  t.test('the agent audit view lists tool calls', async (t) => {
    p.app.services.audit.write({
      at: new Date().toISOString(),
      key: 'agent-1',
      session: 'ref-of-test',
      tool: 'getUserFollowers',
      route: 'GET /user/followers',
      action: 'read',
      arguments: { user_id: '1', password: '[redacted]' },
      outcome: 'ok',
      status: 200,
      confirmation: 'elicited',
      request_id: 'req-browser',
      ms: 3,
    });
    await page.getByRole('link', { name: 'Agent audit' }).click();
    const entry = page.locator('table.audit tr', { hasText: 'getUserFollowers' });
    await entry.waitFor();
    t.match(await entry.innerText(), /agent-1[\s\S]*ref-of-test[\s\S]*\[redacted\][\s\S]*ok[\s\S]*by a human/);
    await page.getByLabel('Tool', { exact: true }).fill('noSuchTool');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('No tool call matches.').waitFor();
    t.pass('filtered by tool');
  });

  t.test('the app-profile upgrade of a session keeps its ID', async (t) => {
    const session = await login();
    const before = ((await api('GET', '/auth/settings', KEY, { headers: { 'x-session-id': session } })).body as R).device_settings as R;
    await page.getByRole('link', { name: 'Sessions' }).first().click();
    const name = `demo #${sessionRef(session).slice(0, 6)}`;
    await page.getByRole('button', { name: `Upgrade app profile of ${name}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Upgrade app profile: ${name} done.` })
      .waitFor();
    const after = await api('GET', '/auth/settings', KEY, { headers: { 'x-session-id': session } });
    t.equal(after.status, 200, 'the same session ID still works');
    const device = (after.body as R).device_settings as R;
    t.not(device.app_version, before.app_version, 'the app profile changed');
    t.equal(device.manufacturer, before.manufacturer, 'the device stayed');
  });

  t.test("revoking the console's key closes it", async (t) => {
    t.equal((await api('DELETE', '/keys', KEY, { form: { name: 'ops' } })).status, 200);
    await page.reload();
    await page.getByLabel('API key').waitFor();
    t.pass('the key form again');
  });
}
