// MCP clients for tests, with the official client SDK: over Streamable HTTP to an app's /mcp, and
// the answers a tool call gives (structured content, or the error body a tool error carries).
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import type { R } from './session-http.js';

export async function mcpOverHttp(baseUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'socialgate-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers } }));
  return client;
}

/** A tool's answer, insisting it is not an error (and that its text says the same as its structure). */
export function answerOf(result: unknown): R {
  const call = result as CallToolResult;
  if (call.isError) throw new Error(`tool error: ${JSON.stringify(call.content).slice(0, 300)}`);
  const text = call.content.find((c) => c.type === 'text');
  if (text?.type === 'text' && JSON.stringify(JSON.parse(text.text)) !== JSON.stringify(call.structuredContent)) throw new Error('text and structured content differ');
  return call.structuredContent as R;
}

/** A tool error's body: what HTTP would have answered (detail, exc_type, hint, errors) and its status. */
export function errorOf(result: unknown): R {
  const call = result as CallToolResult;
  if (!call.isError) throw new Error(`expected a tool error, got ${JSON.stringify(call.structuredContent).slice(0, 300)}`);
  const text = call.content.find((c) => c.type === 'text');
  return JSON.parse(text?.type === 'text' ? text.text : '{}') as R;
}
