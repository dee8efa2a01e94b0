// A boot error in the manifest: always names the file, and the route and key when there is one,
// so a typo is found by reading one line.
export class ManifestError extends Error {
  readonly file: string;
  readonly route?: string;
  readonly key?: string;
  constructor(file: string, problem: string, where: { route?: string; key?: string } = {}) {
    const parts = [file, where.route && `route "${where.route}"`, where.key && `key "${where.key}"`].filter(Boolean);
    super(`${parts.join(': ')}: ${problem}`);
    this.name = 'ManifestError';
    this.file = file;
    this.route = where.route;
    this.key = where.key;
  }
}
