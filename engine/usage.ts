// Requests and errors per session and route family, for the operator console. Counted in memory by
// this instance (the console shows what this instance served); a request costs two map lookups and
// an addition. A revoked session's tallies are dropped with it.
export interface Tally {
  requests: number;
  errors: number;
}

export class SessionUsage {
  private readonly bySession = new Map<string, Map<string, Tally>>();
  /** Bumped on every count: a reader tells at once whether anything changed since it last looked. */
  version = 0;

  count(sessionId: string, family: string, failed: boolean): void {
    let families = this.bySession.get(sessionId);
    if (!families) this.bySession.set(sessionId, (families = new Map()));
    let tally = families.get(family);
    if (!tally) families.set(family, (tally = { requests: 0, errors: 0 }));
    tally.requests++;
    if (failed) tally.errors++;
    this.version++;
  }

  /** One session's tallies by family, as plain data. */
  of(sessionId: string): Record<string, Tally> {
    const families = this.bySession.get(sessionId);
    return families ? Object.fromEntries([...families].map(([family, tally]) => [family, { ...tally }])) : {};
  }

  forget(sessionId: string): void {
    if (this.bySession.delete(sessionId)) this.version++;
  }
}
