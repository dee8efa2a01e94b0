// The 2025 protocol's leg of /mcp, wired here rather than by the SDK's stateless fallback so its
// event streams open as the 2025-11-25 revision asks: a priming event (an id, empty data) with a
// `retry` field telling the client how soon to reconnect. An `initialize` opens a session of this
// instance (Mcp-Session-Id): its server stays, so it can ask the human (elicitation) in the middle
// of a tool call and send resource updates on the session's stream. A request without a session
// is served statelessly by a fresh server. The events of a stream are kept in a small ring of this
// instance, so a client that lost a stream can resume it here with Last-Event-ID.
import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type EventStore,
  type JSONRPCMessage,
  type Server,
} from '@modelcontextprotocol/server';

/** How soon a client reconnects to a stream that ended early, as the priming event's `retry`. */
export const RETRY_MS = 1000;
/** Events kept for resumption on this instance (a ring: the oldest is forgotten first). */
const KEPT = 2000;

/** Serves one 2025-protocol request with the server given; the server is closed when the answer ends. */
export async function serveLegacy(server: Server, request: Request, authInfo: AuthInfo, events: EventStore): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, eventStore: events, retryInterval: RETRY_MS });
  await server.connect(transport);
  const closeAll = () => void Promise.allSettled([transport.close(), server.close()]);
  request.signal.addEventListener('abort', closeAll, { once: true });
  return transport.handleRequest(request, { authInfo });
}

/** Sessions one instance keeps at once; the one idle longest is closed first. */
const MOST_SESSIONS = 1000;
/** A session unused this long is closed (its client opens another with initialize). */
const IDLE_MS = 30 * 60_000;

interface OpenSession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** The API key that opened it: a request with another key does not find it. */
  readonly key: string;
  usedAt: number;
}

/**
 * The 2025 sessions of this instance. A session lives where it began: a fleet routes /mcp by the
 * Mcp-Session-Id header (sticky), and a request whose session is not here is answered 404, which
 * tells a 2025 client to initialize again.
 */
export class LegacySessions {
  private readonly open = new Map<string, OpenSession>();

  constructor(
    private readonly events: EventStore,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Serves a 2025 request; `key` names the API key it came with (a session answers only its own key). */
  async serve(server: () => Server, request: Request, authInfo: AuthInfo, key: string): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id) return this.resume(id, request, authInfo, key);
    const body =
      request.method === 'POST'
        ? await request
            .clone()
            .json()
            .catch(() => undefined)
        : undefined;
    if (!isInitializeRequest(body)) return serveLegacy(server(), request, authInfo, this.events);
    return this.begin(server(), request, authInfo, body, key);
  }

  private async begin(server: Server, request: Request, authInfo: AuthInfo, body: unknown, key: string): Promise<Response> {
    this.makeRoom();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: this.events,
      retryInterval: RETRY_MS,
      onsessioninitialized: (id) => void this.open.set(id, { transport, server, key, usedAt: this.now() }),
      onsessionclosed: (id) => void this.close(id),
    });
    await server.connect(transport);
    return transport.handleRequest(request, { authInfo, parsedBody: body });
  }

  private async resume(id: string, request: Request, authInfo: AuthInfo, key: string): Promise<Response> {
    const session = this.open.get(id);
    if (!session || session.key !== key) return sessionNotFound();
    session.usedAt = this.now();
    return session.transport.handleRequest(request, { authInfo });
  }

  /** Closes the sessions idle too long and, when still full, the one idle longest. */
  private makeRoom(): void {
    for (const [id, session] of this.open) if (this.now() - session.usedAt > IDLE_MS) this.close(id);
    if (this.open.size < MOST_SESSIONS) return;
    const oldest = [...this.open.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt)[0];
    if (oldest) this.close(oldest[0]);
  }

  close(id: string): void {
    const session = this.open.get(id);
    if (!session) return;
    this.open.delete(id);
    void Promise.allSettled([session.transport.close(), session.server.close()]);
  }

  closeAll(): void {
    for (const id of [...this.open.keys()]) this.close(id);
  }
}

/** The 2025 transport's own answer for a session it does not know: 404, so the client initializes again. */
function sessionNotFound(): Response {
  const body = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null };
  return new Response(JSON.stringify(body), { status: 404, headers: { 'content-type': 'application/json' } });
}

/** A bounded in-memory event store: stream ids and messages, in order, for replay after an event id. */
export function ringEventStore(): EventStore {
  const events: { id: string; stream: string; message: JSONRPCMessage }[] = [];
  return {
    async storeEvent(stream, message) {
      const id = `${stream}_${randomUUID()}`;
      events.push({ id, stream, message });
      if (events.length > KEPT) events.splice(0, events.length - KEPT);
      return id;
    },
    async getStreamIdForEventId(id) {
      return events.find((event) => event.id === id)?.stream;
    },
    async replayEventsAfter(lastId, { send }) {
      const at = events.findIndex((event) => event.id === lastId);
      if (at < 0) return '';
      const { stream } = events[at];
      for (const event of events.slice(at + 1)) if (event.stream === stream) await send(event.id, event.message);
      return stream;
    },
  };
}
