// The console in a real browser (Debian's chromium through playwright-core) against the product on the
// sandbox, with an API key set: the key form, logins that stop at a two-factor prompt and at a
// challenge finished in the page, a throttle seen live, a revocation, health; an accessibility
// check (axe-core) on every view, a phone-sized screen, the keyboard, and no request off the machine.
import t, { type Test } from 'tap';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS, withChromium } from '../../support/browser.js';
import { product } from '../../helpers/full-app.js';
import { consoleDir } from '../../../plugins/console/assets.js';
import { startReceiver } from '../../support/webhook-receiver.js';

const KEY = 'console-browser-key-0123456789';
const ARTIFACTS = 'test/artifacts';
await withChromium('console browser test', run);

async function run(): Promise<void> {
  t.ok(readFileSync(`${consoleDir()}/index.html`, 'utf8').includes('importmap'), 'the console is built (npm run build)');
  // Pages of a job 300 ms apart: the bar is seen moving, and the whole job takes two or three seconds.
  const { client } = await product({
    apiKey: KEY,
    extra: { JOB_INTERVAL_MS: '300', FETCH_ALLOW: '127.0.0.1', WATCH_INTERVAL_SECONDS: '0.2', WATCH_FLOOR_SECONDS: '0.05' },
  });
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  t.teardown(() => client.close());
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(8000); // a step that has not happened in 8 s will not happen
  const page = await context.newPage();
  const offMachine: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(client.url)) offMachine.push(request.url());
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  const keyed = { 'x-api-key': KEY };
  const api = (method: string, path: string, options: Parameters<typeof client.request>[2] = {}) =>
    client.request(method, path, { ...options, headers: { ...keyed, ...options.headers } });

  t.test('the key is asked once, in a form', async (t) => {
    await page.goto(`${client.url}/console`);
    const field = page.getByLabel('API key');
    await field.waitFor();
    t.notOk(page.url().includes(KEY), 'never in the URL');
    await axe(t, page, 'key form');
    await field.fill('wrong-key');
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong API key' }).waitFor();
    await field.fill(KEY);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor();
    t.equal(await page.evaluate(() => document.cookie), '', "the key cookie is out of script's reach");
  });

  t.test('demo_2fa logs in through the form with its two-factor code', async (t) => {
    await page.getByRole('link', { name: 'Log in an account' }).first().click();
    await page.getByLabel('Username').fill('demo_2fa');
    await page.getByLabel('Password').fill('demo-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    const code = page.getByRole('textbox', { name: 'Two-factor code' });
    await code.waitFor();
    t.equal(await code.inputValue(), '', 'the code field starts empty (nothing typed earlier shows in it)');
    await page.locator('input[type=password]').waitFor({ state: 'detached' });
    t.pass('the password field is gone');
    await page.screenshot({ path: `${ARTIFACTS}/console-two-factor.png` });
    await axe(t, page, 'two-factor step');
    const totp = (await api('GET', '/auth/totp/code', { query: { seed: 'JBSWY3DPEHPK3PXP' } })).body as string;
    await code.fill(totp);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'demo_2fa is logged in' }).waitFor();
    t.pass('logged in');
  });

  t.test('demo_challenge logs in through its challenge', async (t) => {
    await page.getByRole('button', { name: 'Log in another account' }).click();
    await page.getByLabel('Username').fill('demo_challenge');
    await page.getByLabel('Password').fill('demo-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    const code = page.getByRole('textbox', { name: 'Security code' });
    await code.waitFor();
    t.equal(await code.inputValue(), '', 'the code field starts empty');
    await axe(t, page, 'challenge step');
    await code.fill('123456');
    await page.getByRole('button', { name: 'Send the code' }).click();
    await page.getByRole('heading', { name: 'demo_challenge is logged in' }).waitFor();
    t.pass('logged in');
  });

  t.test('the list shows both, and demo_throttled turns throttled after a call, live', async (t) => {
    await page.getByRole('link', { name: 'Sessions' }).click();
    for (const name of ['demo_2fa', 'demo_challenge']) await row(page, name).waitFor();
    const sid = (await api('POST', '/auth/login', { form: { username: 'demo_throttled', password: 'demo-password' } })).body as string;
    await row(page, 'demo_throttled').getByText('Active', { exact: true }).waitFor();
    t.equal((await api('GET', '/account', { headers: { 'x-session-id': sid } })).status, 429, 'its call is throttled');
    await row(page, 'demo_throttled').getByText('Throttled', { exact: true }).waitFor({ timeout: 5000 });
    await row(page, 'demo_throttled')
      .getByRole('button', { name: /^Clear throttle of demo_throttled #/ })
      .waitFor();
    t.pass('with a button to clear it');
    await page.screenshot({ path: `${ARTIFACTS}/console-sessions.png` });
    await axe(t, page, 'sessions');
  });

  t.test('revoke a session, confirmed first', async (t) => {
    const target = row(page, 'demo_2fa');
    await target.getByRole('button', { name: /^Revoke demo_2fa #/ }).focus();
    await page.keyboard.press('Enter');
    // The focus moves once the question has rendered: wait for that state, not for a time.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Keep');
    t.pass('the question takes the focus, on its safe choice');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await target.waitFor({ state: 'detached', timeout: 5000 });
    await page
      .getByRole('status')
      .filter({ hasText: /Revoke: demo_2fa #\S+ done/ })
      .waitFor();
    const left = (await api('GET', '/console/sessions')).body as { sessions: { account: { username: string } }[] };
    t.notOk(
      left.sessions.some((s) => s.account.username === 'demo_2fa'),
      'gone from the store',
    );
  });

  t.test('add a session to a pool from its row', async (t) => {
    const target = row(page, 'demo_challenge');
    await target.getByRole('textbox', { name: /^Pool to add demo_challenge #/ }).fill('readers');
    await target.getByRole('button', { name: /^Add demo_challenge #\S+ to the pool$/ }).click();
    await target.getByRole('button', { name: /^Remove demo_challenge #\S+ from pool readers$/ }).waitFor();
    t.pass('the pool shows on the row');
  });

  t.test('a job started from the page: its bar reaches the end', async (t) => {
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('heading', { name: 'Start a job' }).waitFor();
    const owner = page.locator('#job-owner option', { hasText: /^demo_challenge #/ });
    await owner.waitFor({ state: 'attached' });
    await page.getByLabel('For').selectOption(await owner.getAttribute('value'));
    await page.getByLabel('Route').selectOption('GET /user/followers');
    await page.getByLabel('Parameters (JSON)').fill('{"user_id": "5000000001", "amount": 20}');
    await page.getByLabel('Most items (0: all)').fill('150');
    await page.getByRole('button', { name: 'Start' }).click();
    const job = page.locator('li.job').first();
    const bar = job.getByRole('progressbar');
    await bar.waitFor();
    const reading = () => bar.evaluate((el) => [(el as HTMLProgressElement).value, (el as HTMLProgressElement).max]);
    // States, not times: the bar part-way (a page in, the job not done), then the job done.
    await page.waitForFunction(
      () => {
        const bar = document.querySelector('li.job progress') as HTMLProgressElement | null;
        return !!bar && bar.value > 0 && bar.value < bar.max;
      },
      undefined,
      { timeout: 10_000 },
    );
    t.pass('the bar moved on its way');
    await page.locator('li.job[data-state="done"]').first().waitFor({ timeout: 10_000 });
    t.same(await reading(), [150, 150], 'the bar is full: 150 of 150');
    await job.getByRole('link', { name: 'CSV' }).waitFor();
    t.pass('the export can be downloaded');
    await page.screenshot({ path: `${ARTIFACTS}/console-jobs.png`, fullPage: true });
    await axe(t, page, 'jobs');
  });

  t.test('watch a session from its row, add a webhook, and see a delivery arrive', async (t) => {
    const demo = (await api('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('button', { name: /^Watch demo #/ }).click();
    await row(page, 'demo').getByText('every 0.2 s').waitFor();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Add an endpoint' }).waitFor();
    const box = await page.getByLabel('direct.message.created').boundingBox();
    const text = await page.locator('label.check span', { hasText: 'direct.message.created' }).boundingBox();
    t.ok(box && box.width < 40, `a checkbox keeps its size (${box?.width} px wide)`);
    t.ok(box && text && Math.abs(box.y + box.height / 2 - (text.y + text.height / 2)) < 12 && text.x > box.x, 'its label beside it, on its line');
    const refusedUrl = 'http://192.168.77.7/hook';
    const refused = await api('POST', '/webhooks', { form: { url: refusedUrl } });
    const hint = (refused.body as { hint?: string }).hint ?? '';
    t.ok(refused.status >= 400 && hint.length > 0, `the API refuses a private host with a hint (${refused.status}: ${hint})`);
    await page.getByLabel('URL').fill(refusedUrl);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const alert = page.locator('.banner-error[role=alert]');
    await alert.filter({ hasText: hint }).waitFor();
    t.match(await alert.evaluate((el) => getComputedStyle(el).color), /rgb\(164, 22, 26\)/, "styled as an error, with the API's hint");
    t.equal(await page.locator('p.status').textContent(), '', 'and not in the banner of what went well');
    await page.getByRole('link', { name: 'Health' }).click();
    await alert.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Webhooks' }).click();
    t.equal(await alert.count(), 0, 'moving to another view clears it');
    // "No endpoint yet." must not show once an endpoint is added, not even until the stream's next list.
    await page.evaluate(() => {
      const seen = { flash: false };
      (window as unknown as { seen: typeof seen }).seen = seen;
      new MutationObserver(() => void (seen.flash ||= document.body.textContent!.includes('No endpoint yet'))).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    });
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('direct.message.created').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = page.locator('code.secret-value');
    await secret.waitFor();
    receiver.secret = (await secret.textContent())!;
    t.match(receiver.secret, /^whsec_/, 'the secret is shown once');
    await page.screenshot({ path: `${ARTIFACTS}/console-webhooks-secret.png` });
    await page.getByRole('button', { name: 'I have kept it' }).click();
    await secret.waitFor({ state: 'detached' });
    t.pass('and then gone');
    const sent = await api('POST', '/sandbox/activity', {
      form: { kind: 'message', from: '5000000002', text: 'to the console' },
      headers: { 'x-session-id': demo },
    });
    t.equal(sent.status, 200, sent.text);
    await receiver.waitFor('the delivery', (d) => d.some((x) => x.data.text === 'to the console'));
    const delivered = page.locator('tr[data-outcome="delivered"]').first();
    await delivered.waitFor();
    t.match(await delivered.textContent(), /direct\.message\.created.*204/s, 'the delivery shows in the page with its status');
    t.equal(
      await page.evaluate(() => (window as unknown as { seen: { flash: boolean } }).seen.flash),
      false,
      '"No endpoint yet." never flashed after adding one',
    );
    const figures = page.locator('li.endpoint p.muted').first();
    await figures.filter({ hasText: /\b\d+ attempts?\b/ }).waitFor();
    t.notMatch(await figures.textContent(), /\b1 attempts\b/, 'one attempt reads "1 attempt"');
    await page.screenshot({ path: `${ARTIFACTS}/console-webhooks.png`, fullPage: true });
    await axe(t, page, 'webhooks');
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('button', { name: /^Stop watching demo #/ }).click();
    await row(page, 'demo').getByText('not watched').waitFor();
  });

  t.test('health: the upstream and the last hour by family', async (t) => {
    await page.getByRole('link', { name: 'Health' }).click();
    await page.getByRole('heading', { name: 'Upstream' }).waitFor();
    await page.getByText('aiograpi 1.0.9 (emulated by the sandbox)').waitFor();
    t.pass('the library and its version');
    await page.getByRole('rowheader', { name: 'auth' }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/console-health.png`, fullPage: true });
    await axe(t, page, 'health');
  });

  t.test('keyboard and phone', async (t) => {
    const fresh = await context.newPage();
    t.teardown(() => fresh.close());
    await fresh.goto(`${client.url}/console#sessions`);
    await fresh.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor();
    await fresh.keyboard.press('Tab');
    await fresh.waitForFunction(() => document.activeElement?.textContent === 'Skip to content');
    t.pass('the first Tab reaches the skip link');
    for (let i = 0; i < 6; i++) await fresh.keyboard.press('Tab'); // past the skip link and five views before Health
    await fresh.waitForFunction(() => document.activeElement?.textContent === 'Health');
    t.pass('the views are reached by Tab');
    await fresh.keyboard.press('Enter');
    await fresh.getByRole('heading', { name: 'Health', level: 1 }).waitFor();
    const phoneContext = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    t.teardown(() => phoneContext.close());
    await phoneContext.addCookies(await context.cookies());
    const phone = await phoneContext.newPage();
    await phone.goto(`${client.url}/console#sessions`);
    await row(phone, 'demo_challenge').waitFor();
    t.ok(
      await phone.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
      'no sideways scrolling of the page on a phone (the table scrolls in its own region)',
    );
    await phone.screenshot({ path: `${ARTIFACTS}/console-phone.png` });
    await axe(t, phone, 'phone');
  });

  t.test('the page made no request off the machine, and its policy runs no other script', async (t) => {
    t.same(offMachine, []);
    await t.rejects(page.addScriptTag({ content: 'window.injected = true' }), /Content Security Policy/, 'an inline script is refused');
    await t.rejects(page.addScriptTag({ url: 'https://cdn.example.org/x.js' }), 'a script from elsewhere is refused');
    t.same(offMachine, [], 'and never requested: the policy stops it before the network');
  });
}

const row = (page: Page, account: string) => page.locator(`tr[data-account="${account}"]`);

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2 A and AA rules on the page as it is: no serious or critical violation. */
async function axe(t: Test, page: Page, what: string): Promise<void> {
  // Through the debugger protocol: the page's own policy refuses inline scripts (tested below).
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await (
      window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }
    ).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  t.same(serious, [], `${what}: no serious accessibility violation`);
  if (violations.length > serious.length) t.comment(`${what}: minor findings ${JSON.stringify(violations.filter((v) => !serious.includes(v)))}`);
}
