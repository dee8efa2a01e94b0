// The 2025 protocol's leg of /mcp, wired here rather than by the SDK's stateless fallback so its
// event streams open as the 2025-11-25 revision asks: a priming event (an id, empty data) with a
// `retry` field telling the client how soon to reconnect. Still stateless: a fresh server per
// request; the events of a stream are kept in a small ring of this instance, so a client that
// lost a stream can resume it here with Last-Event-ID.
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport, type AuthInfo, type EventStore, type JSONRPCMessage, type Server } from '@modelcontextprotocol/server';

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
