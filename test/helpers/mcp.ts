// MCP clients for tests, with the official client SDK: over Streamable HTTP to an app's /mcp, and
// the answers a tool call gives (structured content, or the error body a tool error carries).
import { Client, StreamableHTTPClientTransport, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/client';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities as Sdk1Capabilities } from '@modelcontextprotocol/sdk/types.js';
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
  if (text?.type === 'text' && JSON.stringify(JSON.parse(text.text)) !== JSON.stringify(call.structuredContent))
    throw new Error('text and structured content differ');
  return call.structuredContent as R;
}

/** A tool error's body: what HTTP would have answered (detail, exc_type, hint, errors) and its status. */
export function errorOf(result: unknown): R {
  const call = result as CallToolResult;
  if (!call.isError) throw new Error(`expected a tool error, got ${JSON.stringify(call.structuredContent).slice(0, 300)}`);
  const text = call.content.find((c) => c.type === 'text');
  return JSON.parse(text?.type === 'text' ? text.text : '{}') as R;
}

/** The current client generation on protocol 2026-07-28 (negotiated), with the capabilities given (elicitation, ...). */
export async function modernOverHttp(baseUrl: string, headers: Record<string, string> = {}, capabilities: ClientCapabilities = {}): Promise<Client> {
  const client = new Client({ name: 'socialgate-tests-modern', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers } }));
  return client;
}

/**
 * The client generation most agents ship today: the TypeScript SDK 1.x. It validates structured
 * content against the tool's output schema whenever it is present, errors included.
 */
export async function sdk1OverHttp(baseUrl: string, headers: Record<string, string> = {}, capabilities: Sdk1Capabilities = {}): Promise<Sdk1Client> {
  const client = new Sdk1Client({ name: 'socialgate-tests-sdk1', version: '1.0.0' }, { capabilities });
  await client.connect(new Sdk1Transport(new URL('/mcp', baseUrl), { requestInit: { headers } }));
  return client;
}

/** The three clients of the tests by name: the SDK 1.x, and the current generation on each protocol. */
export const GENERATIONS = {
  'SDK 1.x': sdk1OverHttp,
  'SDK 2 (2025 protocol)': mcpOverHttp,
  'SDK 2 (2026-07-28)': (baseUrl: string, headers?: Record<string, string>) => modernOverHttp(baseUrl, headers),
} as const;

/** What every generation's client answers a tool call with. */
export type AnyClient = { callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>; close(): Promise<void> };
