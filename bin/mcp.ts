// `socialgate mcp`: the MCP endpoint over stdio for desktop clients. It serves no tools of its
// own: it forwards `tools/list` and `tools/call` to a running socialgate's /mcp with the session
// (and API key) from its configuration, so both transports list and run exactly the same tools.
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { SERVICE_VERSION } from '../engine/openapi.js';

export interface BridgeOptions {
  readonly url: URL;
  readonly sessionId?: string;
  readonly apiKey?: string;
  readonly timeoutMs: number;
}

const FLAGS: Readonly<Record<string, { env: string; key: 'url' | 'sessionId' | 'apiKey' | 'timeoutMs' }>> = {
  '--url': { env: 'SOCIALGATE_URL', key: 'url' },
  '--session': { env: 'SOCIALGATE_SESSION_ID', key: 'sessionId' },
  '--api-key': { env: 'SOCIALGATE_API_KEY', key: 'apiKey' },
  '--timeout-ms': { env: 'SOCIALGATE_MCP_TIMEOUT_MS', key: 'timeoutMs' },
};

/** Flags over environment variables; an unknown flag or a bad value stops the start. */
export function bridgeOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BridgeOptions {
  const given: Partial<Record<'url' | 'sessionId' | 'apiKey' | 'timeoutMs', string>> = {};
  for (const { env: name, key } of Object.values(FLAGS)) if (env[name]) given[key] = env[name];
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const known = FLAGS[flag];
    if (!known) throw new Error(`unknown option ${flag} (known: ${Object.keys(FLAGS).join(', ')})`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`option ${flag} needs a value`);
    given[known.key] = value;
  }
  const base = given.url ?? 'http://127.0.0.1:8000';
  if (!/^https?:\/\//.test(base)) throw new Error(`--url must be an http(s) URL, got "${base}"`);
  const timeoutMs = Number(given.timeoutMs ?? 30_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100) throw new Error(`--timeout-ms must be an integer of at least 100, got "${given.timeoutMs}"`);
  return { url: new URL('/mcp', base), sessionId: given.sessionId, apiKey: given.apiKey, timeoutMs };
}

/** The running service's /mcp, connected on first use and again after a failure. */
export function remoteEndpoint(options: BridgeOptions) {
  const headers: Record<string, string> = {};
  if (options.sessionId) headers['X-Session-ID'] = options.sessionId;
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
  let connecting: Promise<Client> | undefined;
  const connect = (): Promise<Client> =>
    (connecting ??= (async () => {
      const client = new Client({ name: 'socialgate-stdio', version: SERVICE_VERSION });
      await client.connect(new StreamableHTTPClientTransport(options.url, { requestInit: { headers } }), { timeout: options.timeoutMs });
      return client;
    })());
  // A service that was down or restarted is reached again by the next call, without a restart here.
  const retrying = async <T>(use: (client: Client) => Promise<T>): Promise<T> => {
    try {
      return await use(await connect());
    } catch (error) {
      const failed = connecting;
      connecting = undefined;
      void failed?.then((client) => client.close()).catch(() => undefined);
      throw new Error(`socialgate at ${options.url.origin} did not answer: ${(error as Error).message}`);
    }
  };
  return {
    tools: (): Promise<Tool[]> => retrying(async (client) => (await client.listTools(undefined, { timeout: options.timeoutMs })).tools),
    call: (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
      retrying((client) => client.callTool({ name, arguments: args }, { timeout: options.timeoutMs }) as Promise<CallToolResult>),
    close: async () => (await connecting?.catch(() => undefined))?.close(),
  };
}

type Remote = ReturnType<typeof remoteEndpoint>;

function bridgeServer(remote: Remote): Server {
  const server = new Server({ name: 'socialgate', version: SERVICE_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools: await remote.tools() }));
  server.setRequestHandler('tools/call', async (request) => {
    try {
      return await remote.call(request.params.name, request.params.arguments ?? {});
    } catch (error) {
      const body = {
        detail: (error as Error).message,
        exc_type: 'ServiceUnreachable',
        hint: 'Start socialgate (socialgate serve) or fix --url; the next call connects again.',
        status: 503,
      };
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
    }
  });
  return server;
}

export async function runMcp(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const remote = remoteEndpoint(bridgeOptions(argv, env));
  const handle = serveStdio(() => bridgeServer(remote), { onerror: (error) => process.stderr.write(`socialgate mcp: ${error.message}\n`) });
  // stdout carries the protocol: the process lives until the client closes stdin or stops it.
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await handle.close();
  await remote.close();
  return 0;
}
