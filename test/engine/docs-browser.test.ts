// In a real browser (Debian's chromium through playwright-core): /docs greets
// a newcomer (three steps and Authorize above the fold, errors behind a link, operations collapsed
// under a filter box), and requests sent from the page arrive as typed: a long id keeps every digit,
// a JSON field arrives as JSON, a list as repeated fields. A few routes' examples run from the page.
import t from 'tap';
import { mkdirSync } from 'node:fs';
import { chromium, type Page, type Request } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS, withChromium } from '../support/browser.js';
import { product } from '../helpers/full-app.js';

await withChromium('docs browser test', run);

async function run(): Promise<void> {
  const { app, client } = await product();
  t.teardown(() => client.close());
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const sent: Request[] = [];
  page.on('request', (request) => sent.push(request));
  const example = (key: string) => app.manifest.routes.find((r) => r.key === key)!;

  const opened = Date.now();
  await page.goto(`${client.url}/docs`);
  await page.locator('.opblock').first().waitFor({ state: 'visible' });
  const firstOperationMs = Date.now() - opened;

  t.test('the landing screen greets a newcomer', async (t) => {
    t.comment(`first operation visible ${firstOperationMs} ms after opening the page`);
    // The goal is 1.5 s (bench/docs.md has the figures); a speed target is a benchmark figure, so the
    // figure is reported here and the bound only catches a page that never settles.
    t.ok(firstOperationMs < 20_000, `the first operation is visible (${firstOperationMs} ms)`);
    const documentFetches = sent.filter((request) => new URL(request.url()).pathname === '/openapi.json');
    t.equal(documentFetches.length, 1, 'the document is fetched once: Swagger UI uses the preloaded copy');
    const authorize = await page.locator('.auth-wrapper .authorize').boundingBox();
    t.ok(authorize && authorize.y + authorize.height < 800, `the Authorize button is above the fold (at ${authorize?.y} px)`);
    for (const step of ['Log in as demo', 'Authorize', 'Try GET /user'])
      t.ok(await page.getByText(step, { exact: false }).first().isVisible(), `step "${step}" is shown`);
    t.notOk(await page.getByText('upstream exception (and subclasses)').isVisible(), 'the error table is behind a link');
    t.ok(await page.locator('.operation-filter-input').isVisible(), 'a filter box');
    t.equal(await page.locator('.opblock.is-open').count(), 0, 'every operation starts collapsed');
    mkdirSync('test/artifacts', { recursive: true });
    await page.screenshot({ path: 'test/artifacts/docs-landing.png' });
    const requests = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    t.same(
      requests.filter((url) => !url.startsWith(client.url)),
      [],
      'nothing loaded from the internet',
    );
  });

  let session = '';
  t.test('log in from the page: only username and password are filled, and only they are sent', async (t) => {
    const login = example('POST /auth/login');
    const given = (name: string) => String(login.params.find((p) => p.name === name)!.example);
    const op = await openOperation(page, 'Auth', 'postAuthLogin');
    const filled = await op
      .locator('.opblock-body input[type=text], .opblock-body input:not([type]), .opblock-body textarea')
      .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value).filter((value) => value !== ''));
    t.same(filled.sort(), [given('password'), given('username')].sort(), "the manifest's example and nothing else is prefilled");
    t.ok(login.params.filter((p) => !p.required).length >= 3, 'while the form has optional fields');
    // Typed over, as a reader would: only the two fields of the form that were touched.
    await op.locator('tr[data-property-name=username] input').fill(given('username'));
    await op.locator('tr[data-property-name=password] input').fill(given('password'));
    const reply = await execute(page, op, '/auth/login');
    t.same(
      [...new URLSearchParams(reply.sent)],
      [
        ['username', given('username')],
        ['password', given('password')],
      ],
      'the body is username and password alone',
    );
    t.equal(reply.status, 200, reply.body.slice(0, 200));
    // A reader can still send an optional field empty: the box is theirs to tick.
    await op.locator('tr[data-property-name=verification_code] input[type=checkbox]').check();
    const again = await execute(page, op, '/auth/login');
    t.equal(new URLSearchParams(again.sent).get('verification_code'), '', '"Send empty value" ticked: the empty field is sent');
    t.equal(again.status, 200, again.body.slice(0, 200));
    session = JSON.parse(reply.body) as string;
    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.modal-ux input').first().fill(session);
    await page.locator('.modal-ux .auth-btn-wrapper .authorize').click();
    await page.locator('.modal-ux .btn-done').click();
    const kept = await page.evaluate(() => ({ tab: sessionStorage.getItem('socialgate.authorized') ?? '', lasting: JSON.stringify({ ...localStorage }) }));
    t.ok(kept.tab.includes(session), 'the session ID is kept for the tab (sessionStorage)');
    t.notOk(kept.lasting.includes(session), 'and never in localStorage');
    // A reload keeps it: the deep links below reload the page and still send the session.
  });

  t.test('a long id keeps every digit', async (t) => {
    const id = String(example('POST /direct/thread/message').params.find((p) => p.name === 'thread_id')!.example);
    t.ok(id.length > 30, `the example thread id is long (${id})`);
    const op = await openOperation(page, 'Direct', 'postDirectThreadMessage');
    const reply = await execute(page, op, '/direct/thread/message');
    t.equal(new URLSearchParams(reply.sent).get('thread_id'), id, 'the service received the id as typed');
    t.equal(reply.status, 200, reply.body.slice(0, 200));
  });

  t.test('a JSON field arrives as JSON', async (t) => {
    const track = example('POST /note/music').params.find((p) => p.name === 'track')!.example;
    const op = await openOperation(page, 'Notes', 'postNoteMusic');
    t.ok(await op.locator('textarea').count(), 'the JSON field is a text area');
    t.equal(await op.locator('input[type=file]').count(), 0, 'no file input');
    const reply = await execute(page, op, '/note/music');
    t.same(JSON.parse(new URLSearchParams(reply.sent).get('track') ?? 'null'), track, 'the service received the JSON as shown');
    t.equal(reply.status, 200, reply.body.slice(0, 200));
  });

  t.test('a list arrives as repeated fields', async (t) => {
    const ids = example('POST /account/follow/requests/approve').params.find((p) => p.name === 'user_ids')!.example;
    const op = await openOperation(page, 'Account', 'postAccountFollowRequestsApprove');
    const reply = await execute(page, op, '/account/follow/requests/approve');
    t.same(new URLSearchParams(reply.sent).getAll('user_ids'), ids, 'one field per value');
    t.equal(reply.status, 200, reply.body.slice(0, 200));
  });

  t.test('examples run from the page as shown', async (t) => {
    for (const [tag, id, path] of [
      ['User', 'getUser', '/user'],
      ['User', 'getUserFollowers', '/user/followers'],
      ['Media', 'postMediaLike', '/media/like'],
      ['Search', 'getSearchUsers', '/search/users'],
    ] as const) {
      const op = await openOperation(page, tag, id);
      const reply = await execute(page, op, path);
      t.equal(reply.status, 200, `${id} answers 200 from the page: ${reply.body.slice(0, 200)}`);
    }
  });

  t.test('an opened operation documents its answer with the referenced schema', async (t) => {
    // The page resolves references itself (engine/docs.ts LocalRefs): the documented answer shows
    // the referenced schema's fields, and Swagger UI reports no resolver error.
    const op = await openOperation(page, 'User', 'getUser');
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText, the text as rendered
    const documented = await op.locator('.responses-table:not(.live-responses-table) .response').first().innerText();
    t.match(documented, /"username"/, 'GET /user documents its answer with the fields of User');
    t.notMatch(documented, /\$ref/, 'no reference is left unresolved');
    t.equal(await page.locator('.errors-wrapper').count(), 0, 'no resolver errors');
  });
}

async function openOperation(page: Page, tag: string, operationId: string) {
  const op = page.locator(`#operations-${tag}-${operationId}`);
  // A tag that is not open is reached by its deep link (the page reloads; Authorize persists).
  if (!(await op.count())) {
    await page.goto(new URL(`/docs#/${tag}/${operationId}`, page.url()).href);
    await page.reload();
    await op.locator('.execute').waitFor({ state: 'visible' });
    return op;
  }
  await op.locator('.opblock-summary').first().click();
  await op.locator('.execute').waitFor({ state: 'visible' });
  return op;
}

/** Presses Execute and returns what the browser sent and what the service answered. */
async function execute(page: Page, op: ReturnType<Page['locator']>, path: string): Promise<{ status: number; body: string; sent: string }> {
  const [response] = await Promise.all([page.waitForResponse((r) => new URL(r.url()).pathname === path), op.locator('.execute').click()]);
  const request = response.request();
  const sent = request.method() === 'GET' ? new URL(request.url()).search.slice(1) : (request.postData() ?? '');
  return { status: response.status(), body: await response.text(), sent };
}
