// `node dist/bench/docs.js`: how long /docs takes to show its first operation in Debian's chromium,
// asserting nothing. Each load is a new browser context (an empty cache, as a first visit), then
// the same loads again in one context (a returning visitor: the assets from cache, the document
// revalidated by ETag). Besides the total it splits where the time went, from the page's own
// timeline: the bundle, the OpenAPI document, and Swagger UI's work after both arrived.
import { chromium, type Browser } from 'playwright-core';
import { composeApp } from '../bin/compose.js';
import { testConfig } from '../engine/config.js';
import { CHROMIUM, CHROMIUM_FLAGS } from '../test/support/chromium.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const LOADS = Number(process.env.BENCH_LOADS ?? 5);

/** Marks, in the page's clock, the moment the first operation is in the DOM. */
const MARK_FIRST_OPERATION = `new MutationObserver(function (_, observer) {
  if (!document.querySelector('.opblock')) return;
  performance.mark('first-operation');
  observer.disconnect();
  requestAnimationFrame(function () { setTimeout(function () { performance.mark('first-operation-painted'); }); });
}).observe(document, { childList: true, subtree: true });
window.__longTasks = [];
new PerformanceObserver(function (list) {
  list.getEntries().forEach(function (e) { window.__longTasks.push([Math.round(e.startTime), Math.round(e.duration)]); });
}).observe({ type: 'longtask', buffered: true });`;

export interface DocsLoad {
  first_operation_ms: number;
  in_page_ms: number;
  bundle_done_ms: number;
  document_done_ms: number;
  after_both_ms: number;
  document_bytes: { wire: number; raw: number };
  bundle_bytes: { wire: number; raw: number };
}

/** One load of /docs: wall time from goto to the first visible operation, and the page's timeline. */
export async function loadDocs(browser: Browser, url: string, context?: Awaited<ReturnType<Browser['newContext']>>): Promise<DocsLoad> {
  const own = context ?? (await browser.newContext({ viewport: { width: 1280, height: 800 } }));
  const page = await own.newPage();
  await page.addInitScript(MARK_FIRST_OPERATION);
  const opened = Date.now();
  await page.goto(`${url}/docs`);
  await page.locator('.opblock').first().waitFor({ state: 'visible' });
  const first = Date.now() - opened;
  const timeline = await page.evaluate(() => {
    const resource = (suffix: string) => performance.getEntriesByType('resource').find((e) => e.name.endsWith(suffix)) as PerformanceResourceTiming | undefined;
    const bytes = (e?: PerformanceResourceTiming) => ({ wire: e?.encodedBodySize ?? 0, raw: e?.decodedBodySize ?? 0 });
    const bundle = resource('swagger-ui-bundle.js'),
      doc = resource('/openapi.json');
    const mark = performance.getEntriesByName('first-operation')[0]?.startTime ?? NaN;
    const painted = performance.getEntriesByName('first-operation-painted')[0]?.startTime ?? NaN;
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return {
      origin: performance.timeOrigin,
      painted,
      dcl: nav.domContentLoadedEventEnd,
      longTasks: (window as unknown as { __longTasks: number[][] }).__longTasks,
      mark,
      bundleEnd: bundle?.responseEnd ?? NaN,
      docEnd: doc?.responseEnd ?? NaN,
      bundle: bytes(bundle),
      doc: bytes(doc),
    };
  });
  await page.close();
  if (!context) await own.close();
  if (process.env.BENCH_DEBUG)
    process.stdout.write(
      `debug: origin offset ${Math.round(timeline.origin - opened)} ms, dcl ${Math.round(timeline.dcl)}, painted ` +
        `${Math.round(timeline.painted)}, long tasks ${JSON.stringify(timeline.longTasks)}\n`,
    );
  return {
    first_operation_ms: first,
    in_page_ms: Math.round(timeline.mark),
    bundle_done_ms: Math.round(timeline.bundleEnd),
    document_done_ms: Math.round(timeline.docEnd),
    after_both_ms: Math.round(timeline.mark - Math.max(timeline.bundleEnd, timeline.docEnd)),
    document_bytes: timeline.doc,
    bundle_bytes: timeline.bundle,
  };
}

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const app = await composeApp(testConfig({}));
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
  try {
    await loadDocs(browser, url); // unmeasured: the server's first compressions, chromium's first start
    for (const [name, shared] of [
      ['first visit', false],
      ['returning visit', true],
    ] as const) {
      const context = shared ? await browser.newContext({ viewport: { width: 1280, height: 800 } }) : undefined;
      if (context) await loadDocs(browser, url, context);
      const loads: DocsLoad[] = [];
      for (let i = 0; i < LOADS; i++) loads.push(await loadDocs(browser, url, context));
      for (const load of loads) process.stdout.write(`${name}: ${JSON.stringify(load)}\n`);
      process.stdout.write(
        `${name}: median first operation ${median(loads.map((l) => l.first_operation_ms))} ms ` +
          `(bundle done ${median(loads.map((l) => l.bundle_done_ms))} ms, document done ${median(loads.map((l) => l.document_done_ms))} ms, ` +
          `Swagger UI after both ${median(loads.map((l) => l.after_both_ms))} ms)\n`,
      );
      await context?.close();
    }
  } finally {
    await browser.close();
    server.close();
    await app.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
