// The sidecar's JSON-lines protocol (see sidecar.py): one request per line, one answer per line.
import { UpstreamError, type JsonValue, type UpstreamCapabilities } from '../../../engine/types.js';

export type Request =
  | { readonly op: 'ping' }
  | { readonly op: 'introspect' }
  | {
      readonly op: 'open';
      readonly client: string;
      readonly settings: Readonly<Record<string, unknown>>;
      readonly proxy: string | null;
      readonly locale: string | null;
      readonly timezone: number | null;
      /** Build the client with override_app_version=True: the saved app profile is upgraded, the device ids kept. */
      readonly upgrade_app_profile?: boolean;
    }
  | {
      readonly op: 'call';
      readonly client: string;
      readonly method: string;
      readonly kwargs: Readonly<Record<string, unknown>>;
      readonly challenge_code?: string;
      /** An async iterator read as a server-side cursor (sidecar_cursors.py). */
      readonly page?: { readonly cursor: string | null; readonly size: number };
    }
  | { readonly op: 'export'; readonly client: string }
  | { readonly op: 'realtime_start'; readonly client: string }
  | { readonly op: 'realtime_stop'; readonly client: string }
  | { readonly op: 'close'; readonly client: string };

export interface WireError {
  readonly type: string;
  readonly bases?: readonly string[];
  readonly message?: string;
  readonly last_json?: JsonValue;
  /** aiograpi 2.0's login failures: the CAA step markers, and the typed reason beneath a generic error. */
  readonly caa_actions?: readonly string[];
  readonly login_reason?: string;
}

export type Answer =
  | { readonly id: number | null; readonly ok: true; readonly result: unknown }
  | { readonly id: number | null; readonly ok: false; readonly error: WireError };

export interface PingResult {
  readonly library: string;
  readonly version: string | null;
  readonly import_error: string | null;
  readonly python: string;
  readonly pid: number;
  readonly clients: number;
  /** The installed library has the realtime client (aiograpi 1.1 and later). */
  readonly realtime?: boolean;
  /** What the installed library can do, read from its Client (sidecar_compat.py). */
  readonly capabilities?: UpstreamCapabilities;
}

/** A line the sidecar writes unasked: a client's realtime stream rang or died. */
export interface Notice {
  readonly event: 'realtime';
  readonly client: string;
  readonly kind: 'message' | 'lost';
  readonly reason?: string;
}

export function parseNotice(line: string): Notice | undefined {
  if (!line.startsWith('{"event":')) return undefined;
  try {
    const value = JSON.parse(line) as Notice;
    return value.event === 'realtime' && typeof value.client === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** One public Client method, in the shape of the shared methods.json. */
export interface MethodRecord {
  readonly name: string;
  readonly area: string;
  readonly mixin?: string;
  readonly async?: boolean;
  readonly params: readonly { readonly name: string; readonly type?: string; readonly default?: string; readonly required: boolean }[];
  readonly returns?: string | null;
  readonly varargs?: boolean;
  readonly varkw?: boolean;
  readonly signature?: string;
}

export interface MethodsDocument {
  readonly library: string;
  readonly version: string;
  readonly class?: string;
  readonly count?: number;
  readonly methods: readonly MethodRecord[];
}

/** Errors of the adapter itself; the engine's registry maps them (504, 503). */
export const SIDECAR_TIMEOUT = 'SidecarTimeout';
export const SIDECAR_UNAVAILABLE = 'SidecarUnavailable';
export const SIDECAR_CLIENT_NOT_OPEN = 'SidecarClientNotOpen';

export function parseAnswer(line: string): Answer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || !('ok' in value) || !('id' in value)) return undefined;
  return value as Answer;
}

export function toUpstreamError(error: WireError): UpstreamError {
  const login = {
    ...(Array.isArray(error.caa_actions) ? { caa_actions: error.caa_actions.map(String) } : {}),
    ...(typeof error.login_reason === 'string' ? { login_reason: error.login_reason } : {}),
  };
  return new UpstreamError(error.type, error.message ?? error.type, {
    bases: error.bases ?? [],
    ...(error.last_json !== undefined ? { lastJson: error.last_json } : {}),
    ...(Object.keys(login).length ? { login } : {}),
  });
}

export const unavailable = (detail: string): UpstreamError => new UpstreamError(SIDECAR_UNAVAILABLE, detail, { bases: ['SidecarError'] });
export const timedOut = (what: string, ms: number): UpstreamError =>
  new UpstreamError(SIDECAR_TIMEOUT, `upstream call ${what} timed out after ${ms} ms`, { bases: ['SidecarError'] });
