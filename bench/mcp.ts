// `node dist/bench/mcp.js`: the MCP endpoint's figures, asserting nothing. The size of each tool
// set's `tools/list` in tokens (characters / 4), and the latency of one tool call against the same
// HTTP request, both sequential on keep-alive loopback connections to one in-process product.
import { setMaxListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { composeApp } from '../bin/compose.js';
import { testConfig } from '../engine/config.js';
import { buildTools } from '../engine/mcp/tools.js';
import { listingFor } from '../engine/mcp/sets.js';
import { TOOL_SETS } from '../engine/types.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DEMO_PK = '5000000001';

const tokens = (value: unknown): number => Math.round(JSON.stringify(value).length / 4);

function sizes(entries: ReturnType<typeof buildTools>): Record<string, unknown>[] {
  return TOOL_SETS.filter((set) => set !== 'none').map((set) => {
    const { tools } = listingFor(set, entries);
    // What a model is shown of a tool (name, title, description, input schema, hints); the output
    // schema is for the client to check answers with, and most clients do not pass it on.
    const shown = tools.map(({ outputSchema: _output, ...rest }) => rest);
    return { set, tools: tools.length, tokens: tokens({ tools }), tokens_without_output_schemas: tokens({ tools: shown }) };
  });
}

async function timed(calls: number, once: () => Promise<unknown>): Promise<{ mean_ms: number; p50_ms: number; p99_ms: number }> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    await once();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]);
  return { mean_ms: round(samples.reduce((a, b) => a + b, 0) / samples.length), p50_ms: at(0.5), p99_ms: at(0.99) };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

async function main(): Promise<void> {
  const app = await composeApp(testConfig({ mcpTools: 'core' }));
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    process.stdout.write(`tool sets: ${JSON.stringify(sizes(buildTools(app.manifest)))}\n`);
    const login = await fetch(`${base}/auth/login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) });
    const headers = { 'x-session-id': (await login.json()) as string };
    // The client transport gives every fetch one shared signal, and undici drops its listener on
    // that signal only at garbage collection: thousands of quick calls would warn of a leak that
    // is the client's, not the server's.
    setMaxListeners(0);
    const mcp = new Client({ name: 'bench', version: '1' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers } }));
    await mcp.listTools(); // the client checks answers against the listed output schemas
    const http = () => fetch(`${base}/user?user_id=${DEMO_PK}`, { headers }).then((reply) => reply.json());
    const tool = () => mcp.callTool({ name: 'getUser', arguments: { user_id: DEMO_PK } });
    await timed(300, http); // warm-up, unmeasured: both paths optimised before any round counts
    await timed(300, tool);
    for (let round = 1; round <= ROUNDS; round++) {
      const rest = await timed(CALLS, http);
      const mcpCall = await timed(CALLS, tool);
      process.stdout.write(
        `round ${round}: ${JSON.stringify({ calls: CALLS, http: rest, mcp: mcpCall, mean_ratio: Math.round((mcpCall.mean_ms / rest.mean_ms) * 100) / 100 })}\n`,
      );
    }
    await mcp.close();
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
  }
}

await main();
