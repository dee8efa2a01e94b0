// The audit log of MCP tool calls: who called (the API key's name, the session's ref), which tool,
// with which arguments (secrets removed), and how it ended. Written to the service log as each call
// ends, so a log pipeline keeps the full history; kept for operators (GET /console/audit and the
// console) in a bounded list of the shared work store, which every instance writes and reads, or,
// without a background layer, in this instance's ring.
import type { AuditEntry, AuditQuery, Logger, ToolAudit, WorkStore } from '../types.js';

/** This instance's recent tool calls, newest first, at most `size` of them; each also logged. */
export class AuditRing implements ToolAudit {
  private readonly entries: AuditEntry[] = [];
  constructor(
    private readonly size: number,
    private readonly log?: Logger,
  ) {}

  write(entry: AuditEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
    this.log?.info('mcp tool call', { ...entry });
  }

  async recent(query: AuditQuery = {}): Promise<AuditEntry[]> {
    return newestMatching(this.entries, query);
  }
}

function newestMatching(entries: readonly AuditEntry[], query: AuditQuery): AuditEntry[] {
  const limit = query.limit ?? 100;
  const out: AuditEntry[] = [];
  for (let i = entries.length - 1; i >= 0 && out.length < limit; i--) {
    const entry = entries[i];
    if ((query.session === undefined || entry.session === query.session) && (query.tool === undefined || entry.tool === query.tool)) out.push(entry);
  }
  return out;
}

/** The work store's list of audit entries, shared by every instance on the store. */
export const AUDIT_LIST = 'mcp.audit';
/** Appends between two trims of the list back to its size. */
const TRIM_EVERY = 50;

/**
 * The audit every instance shares: each entry is appended to the work store (after the ring of this
 * instance has it, and the log); reads take the store's newest `size`. A store that fails does not
 * fail the tool call: the entry stays in the ring and the log, and reads fall back to the ring.
 */
export class SharedAudit implements ToolAudit {
  private appends = 0;
  /** This instance's appends under way: a read waits for them, so it sees what this instance wrote. */
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly store: WorkStore,
    private readonly ring: AuditRing,
    private readonly size: number,
    private readonly log?: Logger,
  ) {}

  write(entry: AuditEntry): void {
    this.ring.write(entry);
    const kept = this.keep(entry)
      .catch((error: unknown) => this.log?.warn('keeping an audit entry failed', { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => this.writing.delete(kept));
    this.writing.add(kept);
  }

  async recent(query: AuditQuery = {}): Promise<AuditEntry[]> {
    await Promise.all(this.writing);
    try {
      const last = await this.store.last(AUDIT_LIST);
      const kept = await this.store.read<AuditEntry>(AUDIT_LIST, { after: Math.max(0, last - this.size), limit: this.size });
      return newestMatching(
        kept.map((one) => one.value),
        query,
      );
    } catch {
      return this.ring.recent(query);
    }
  }

  private async keep(entry: AuditEntry): Promise<void> {
    await this.store.append(AUDIT_LIST, [{ key: `${entry.request_id}:${entry.tool}:${entry.at}`, value: entry }]);
    if (++this.appends % TRIM_EVERY === 0) await this.store.trim(AUDIT_LIST, this.size);
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
