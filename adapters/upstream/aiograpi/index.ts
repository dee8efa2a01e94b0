// The production upstream: the real aiograpi library in Python sidecar processes, behind the same
// port as the sandbox. Nothing above the port knows which one is in use.
import type { ClientOptions, ReadyCheck, UpstreamAdapter, UpstreamClient, UpstreamLibrary } from '../../../engine/types.js';
import { SidecarClient } from './client.js';
import { resolveOptions, type AiograpiOptions } from './options.js';
import { SidecarPool } from './pool.js';
import type { MethodsDocument, PingResult } from './protocol.js';

export { aiograpiOptionsFromEnv, type AiograpiOptions } from './options.js';
export { SIDECAR_TIMEOUT, SIDECAR_UNAVAILABLE, type MethodRecord, type MethodsDocument } from './protocol.js';

export interface AiograpiAdapter extends UpstreamAdapter {
  /** Always there: the library's version is asked of a sidecar (started if none runs). */
  describe(): Promise<UpstreamLibrary>;
  /** The installed library's version and public Client methods (for the coverage audit). */
  introspect(): Promise<MethodsDocument>;
  /** Process ids of the running sidecars, by slot (diagnostics and tests). */
  pids(): readonly (number | undefined)[];
}

export function createAiograpi(options: AiograpiOptions = {}): AiograpiAdapter {
  const resolved = resolveOptions(options);
  const pool = new SidecarPool(resolved);
  const pingAll = (): Promise<PingResult[]> =>
    Promise.all(
      Array.from({ length: pool.size }, async (_, i) => {
        const process = await pool.process(i);
        return (await process.request({ op: 'ping' }, { timeoutMs: resolved.timeoutMs, what: 'ping' })) as PingResult;
      }),
    );
  const library = (): UpstreamLibrary => {
    const info = pool.info();
    const capabilities = info?.capabilities && Object.keys(info.capabilities).length ? { capabilities: info.capabilities } : {};
    return { name: 'aiograpi', version: info?.version ?? 'unknown', ...capabilities };
  };
  return {
    name: 'aiograpi',
    // The sidecar's JSON types values by magnitude (small ids as numbers, integers past 2^53 as strings).
    resultsNeedTyping: true,
    get library() {
      return library();
    },
    async describe(): Promise<UpstreamLibrary> {
      // The version is what the installed package says, so a sidecar must have started to know it.
      if (!pool.info()) await pool.process(0).catch(() => undefined); // unstartable: "unknown", and /ready says why
      return library();
    },
    async realtimeCapable(): Promise<boolean> {
      if (!pool.info()) await pool.process(0).catch(() => undefined);
      return pool.info()?.realtime === true;
    },
    async open(clientOptions: ClientOptions): Promise<UpstreamClient> {
      return new SidecarClient(pool, clientOptions, resolved.timeoutMs);
    },
    async ready(): Promise<ReadyCheck> {
      let pings: PingResult[];
      try {
        pings = await pingAll();
      } catch (error) {
        return { ok: false, detail: `aiograpi sidecar is not running: ${(error as Error).message}` };
      }
      const broken = pings.find((p) => p.import_error);
      if (broken) return { ok: false, detail: `aiograpi is not importable: ${broken.import_error}` };
      return { ok: true, detail: `aiograpi ${pings[0].version} (Python ${pings[0].python}, ${pings.length} sidecar${pings.length > 1 ? 's' : ''})` };
    },
    async introspect(): Promise<MethodsDocument> {
      const process = await pool.process(0);
      return (await process.request({ op: 'introspect' }, { timeoutMs: resolved.timeoutMs, what: 'introspect' })) as MethodsDocument;
    },
    pids: () => pool.pids(),
    close: () => pool.close(),
  };
}
