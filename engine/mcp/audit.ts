// The audit log of MCP tool calls: who called (the API key's name, the session's ref), which tool,
// with which arguments (secrets removed), and how it ended. Kept in a bounded ring that operators
// read through GET /console/audit, and written to the service log as each call ends, so a log
// pipeline keeps the full history (the ring is this instance's recent past).
import type { AuditEntry, AuditQuery, Logger, ToolAudit } from '../types.js';

/** This instance's recent tool calls, newest first, at most `size` of them; each also logged. */
export class AuditRing implements ToolAudit {
  private readonly entries: AuditEntry[] = [];
  constructor(private readonly size: number, private readonly log?: Logger) {}

  write(entry: AuditEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
    this.log?.info('mcp tool call', { ...entry });
  }

  recent(query: AuditQuery = {}): AuditEntry[] {
    const limit = query.limit ?? 100;
    const out: AuditEntry[] = [];
    for (let i = this.entries.length - 1; i >= 0 && out.length < limit; i--) {
      const entry = this.entries[i];
      if ((query.session === undefined || entry.session === query.session) && (query.tool === undefined || entry.tool === query.tool)) out.push(entry);
    }
    return out;
  }
}

// Argument names that carry credentials anywhere in the manifest (passwords, codes sent by the
// platform, exported settings, cookies, keys): their values never reach the audit or the log.
const SECRET_NAME = /pass(word)?|secret|token|cookie|session_?id|settings|seed|otp|verification|security_code|api_?key|private/i;
const LONGEST_TEXT = 300;

/** The arguments as the audit keeps them: secrets replaced, long texts cut, nested values walked. */
export function withoutSecrets(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).map(([name, value]) => [name, SECRET_NAME.test(name) ? '[redacted]' : cleaned(value)]));
}

function cleaned(value: unknown): unknown {
  if (typeof value === 'string') return value.length > LONGEST_TEXT ? `${value.slice(0, LONGEST_TEXT)}… (${value.length} characters)` : value;
  if (Array.isArray(value)) return value.map(cleaned);
  if (value && typeof value === 'object') return withoutSecrets(value as Record<string, unknown>);
  return value;
}
