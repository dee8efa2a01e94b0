// What the CLI's client commands (jobs, webhooks, events) share: their flags and the HTTP client
// of a running service. Common flags: --url URL (default http://127.0.0.1:8000), --session ID
// (X-Session-ID), --api-key KEY.
export type Api = (method: string, path: string, form?: Record<string, string | string[]>, headers?: Record<string, string>) => Promise<Response>;

export const COMMON_FLAGS = ['--url', '--session', '--api-key'] as const;

/** `--name value`, `--name=value`, and switches (flags that take no value). */
export function parseArgs(
  args: readonly string[],
  known: readonly string[],
  switches: readonly string[] = [],
): { flags: Map<string, string>; positional: string[] } {
  const names = new Set([...COMMON_FLAGS, ...known, ...switches]);
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = args[i].split(/=(.*)/s, 2);
    if (!args[i].startsWith('--')) positional.push(args[i]);
    else if (!names.has(name)) throw new Error(`unknown option ${name} (known: ${[...names].join(', ')})`);
    else if (switches.includes(name)) flags.set(name, 'true');
    else if (inline !== undefined) flags.set(name, inline);
    else if (i + 1 < args.length) flags.set(name, args[++i]);
    else throw new Error(`option ${name} needs a value`);
  }
  return { flags, positional };
}

export function client(flags: Map<string, string>): Api {
  const base = flags.get('--url') ?? 'http://127.0.0.1:8000';
  const common: Record<string, string> = {};
  if (flags.has('--session')) common['x-session-id'] = flags.get('--session')!;
  if (flags.has('--api-key')) common['x-api-key'] = flags.get('--api-key')!;
  return (method, path, form, headers = {}) => {
    let body: URLSearchParams | undefined;
    if (form) {
      body = new URLSearchParams();
      for (const [key, value] of Object.entries(form)) for (const one of [value].flat()) body.append(key, one);
    }
    return fetch(new URL(path, base), { method, headers: { ...common, ...headers }, body });
  };
}

/** The body as JSON, or an error naming the status and the service's answer. */
export async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status}: ${text}`);
  return JSON.parse(text) as T;
}
