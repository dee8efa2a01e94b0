// The audit of MCP tool calls, as a port: the MCP endpoint writes an entry per call, operators
// read them back (GET /console/audit, the console's Audit view). The default is a ring in memory;
// with a background layer the entries are kept in its shared work store (engine/mcp/audit.ts).
import type { ActionClass } from './route.js';

/** One tool call as the audit keeps it. Never a secret: arguments pass through `withoutSecrets`. */
export interface AuditEntry {
  readonly at: string;
  /** The API key's name: `default` for the one key a deployment sets, `none` when it sets none. */
  readonly key: string;
  /** The session's ref (never its ID), or null for a call without one. */
  readonly session: string | null;
  readonly tool: string;
  readonly route: string | null;
  readonly action: ActionClass | null;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** `ok`, or the error's exc_type (`ConfirmationRequired`, `UserNotFound`, ...). */
  readonly outcome: string;
  readonly status: number;
  /** How a write that needs a human's yes got it: `elicited`, or `not_needed`. */
  readonly confirmation: 'elicited' | 'not_needed';
  readonly request_id: string;
  readonly ms: number;
}

export interface AuditQuery {
  readonly limit?: number;
  readonly session?: string;
  readonly tool?: string;
}

/** Where tool calls are written and read back from. */
export interface ToolAudit {
  write(entry: AuditEntry): void;
  /** Newest first. */
  recent(query?: AuditQuery): Promise<AuditEntry[]>;
}
