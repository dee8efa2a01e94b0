// In a real browser (Debian's chromium through playwright-core): the console right with
// hundreds of sessions while logins happen. 200 sessions of two accounts, one of them labelled; the
// "Start a job" form keeps the chosen session while new logins reorder and grow the list, and the job
// runs as that very session; a row pointed at stays where it is while the list changes; every session
// reads as a different name. Each check waits for the state it asserts, never for a time.
import t from 'tap';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS, withChromium } from '../../support/browser.js';
import { product } from '../../helpers/full-app.js';
import { sessionRef } from '../../../engine/session-record.js';

const SESSIONS = 200;
// 200 logins and a browser rendering 200 rows on a machine that may be running much else: more than tap's 120 s.
t.setTimeout(300_000);
await withChromium('console with many sessions', run);

async function run(): Promise<void> {
  const { client, login } = await product({ extra: { JOB_INTERVAL_MS: '300' } });
  t.teardown(() => client.close());
  const loginVia = async (username: string, i: number) => {
    const reply = await client.request('POST', '/auth/login', {
      form: { username, password: 'demo-password', proxy: `http://10.0.${i % 250}.${1 + Math.floor(i / 250)}:8080` },
    });
    if (reply.status !== 200) throw new Error(`login ${username} failed: ${reply.status} ${reply.text}`);
    return reply.body as string;
  };
  for (let i = 0; i < SESSIONS - 1; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, SESSIONS - 1 - i) }, (_, j) => loginVia((i + j) % 4 === 3 ? 'demo_throttled' : 'demo', i + j)));
  }
  const chosen = sessionRef(await login());
  const labelled = await client.request('POST', '/console/sessions/label', { form: { ref: chosen, label: 'chosen one' } });
  if (labelled.status !== 200) throw new Error(`labelling failed: ${labelled.status} ${labelled.text}`);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(20_000); // 200 rows re-rendered on a busy machine; every wait is for a state
  /** Logins while the test works, each one reordering and growing the list the page shows. */
  let more = 0;
  const logins = async (count: number) => {
    for (let i = 0; i < count; i++) await loginVia('demo', SESSIONS + more++);
  };

  t.test('the job form keeps the chosen session while logins reorder the list, and the job runs as it', async (t) => {
    await page.goto(`${client.url}/console#jobs`);
    const options = page.locator('#job-owner option');
    await page.waitForFunction((n) => document.querySelectorAll('#job-owner option').length > n, SESSIONS);
    const texts = (await options.allTextContents()).slice(1);
    t.equal(new Set(texts).size, texts.length, `each of the ${texts.length} sessions reads as a different name`);
    const choice = page.locator('#job-owner option', { hasText: '“chosen one”' });
    await page.getByLabel('For').selectOption(await choice.getAttribute('value'));
    const before = await options.count();
    await logins(12);
    await page.waitForFunction((n) => document.querySelectorAll('#job-owner option').length >= n, before + 12);
    t.equal(await page.getByLabel('For').inputValue(), `ref:${chosen}`, 'still the chosen session after 12 logins');
    await page.getByLabel('Route').selectOption('GET /user/followers');
    await page.getByLabel('Parameters (JSON)').fill('{"user_id": "5000000002", "amount": 20}');
    await page.getByLabel('Most items (0: all)').fill('40');
    const started = page.waitForResponse((r) => new URL(r.url()).pathname === '/console/jobs' && r.request().method() === 'POST');
    const running = logins(6); // and logins go on while it starts
    await page.getByRole('button', { name: 'Start' }).click();
    const job = (await (await started).json()) as { id: string; session_ref: string; account: { username: string } };
    await running;
    t.equal(job.session_ref, chosen, 'the job runs as the chosen session');
    t.equal(job.account.username, 'demo', 'of the chosen account');
    const row = page.locator(`li.job[data-job="${job.id}"]`);
    await row.filter({ hasText: 'for demo “chosen one”' }).waitFor();
    t.equal(await row.getAttribute('data-session'), chosen, "the page names the job's session as the sessions list does");
    const listed = (await client.request('GET', '/console/jobs')).body as { jobs: { id: string; session_ref: string }[] };
    t.equal(listed.jobs.find((j) => j.id === job.id)?.session_ref, chosen, 'and so does the API');
  });

  t.test('a row pointed at stays where it is while the list changes', async (t) => {
    await page.getByRole('link', { name: 'Sessions' }).click();
    const row = page.locator(`tr[data-ref="${chosen}"]`);
    await row.waitFor();
    await row.scrollIntoViewIfNeeded();
    await row.locator('th').hover();
    const region = page.getByRole('region', { name: 'Sessions table' });
    await page.locator('[data-held="true"]').waitFor();
    const y = (await row.boundingBox())!.y;
    const count = Number(await page.locator('p.summary').getAttribute('data-count'));
    await logins(5);
    await page.waitForFunction((n) => Number(document.querySelector('p.summary')?.getAttribute('data-count')) >= n, count + 5);
    t.equal((await row.boundingBox())!.y, y, 'five logins later the row has not moved under the pointer');
    await page.mouse.move(2, 2);
    await page.locator('[data-held="false"]').waitFor();
    t.ok(await region.isVisible(), 'let go once the pointer leaves');
  });
}
