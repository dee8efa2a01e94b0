// A scripted upstream for engine tests: each method answers from a handler table, and every call
// is recorded so tests can assert what crossed the port (method, kwargs, how many).
import type { CallOptions, ClientOptions, UpstreamAdapter, UpstreamClient } from '../../engine/types.js';

export type Handler = (kwargs: Record<string, unknown>, opts?: CallOptions) => unknown | Promise<unknown>;
export interface RecordedCall {
  method: string;
  kwargs: Record<string, unknown>;
  settings: Record<string, unknown>;
}

export interface FakeUpstream extends UpstreamAdapter {
  readonly calls: RecordedCall[];
  readonly opened: ClientOptions[];
  handlers: Record<string, Handler>;
}

export function fakeUpstream(handlers: Record<string, Handler> = {}): FakeUpstream {
  const calls: RecordedCall[] = [];
  const opened: ClientOptions[] = [];
  const adapter: FakeUpstream = {
    name: 'fake',
    library: { name: 'fake', version: '0.0.0' },
    calls,
    opened,
    handlers,
    async open(options) {
      opened.push(options);
      let settings: Record<string, unknown> = { ...options.settings };
      const client: UpstreamClient = {
        async call(method, kwargs, opts) {
          calls.push({ method, kwargs: { ...kwargs }, settings });
          if (method === 'login') settings = { authorization_data: { ds_user_id: '42', sessionid: 'platform-cookie' } };
          const handler = adapter.handlers[method];
          if (!handler) return method === 'login' ? true : { method, kwargs };
          return handler({ ...kwargs }, opts);
        },
        async exportSettings() {
          return settings;
        },
        account() {
          const auth = settings.authorization_data as { ds_user_id?: string } | undefined;
          return auth?.ds_user_id;
        },
        async close() {},
      };
      return client;
    },
    async ready() {
      return { ok: true };
    },
    async close() {},
  };
  return adapter;
}
