// The one error type the engine and plugins throw for HTTP outcomes they decide themselves
// (validation, missing session, limits). Upstream failures stay UpstreamError and are mapped by
// the registry; nothing else invents statuses.

export interface ParamProblem {
  readonly param: string;
  readonly problem: string;
}

export interface HttpErrorOptions {
  readonly excType?: string;
  readonly hint?: string;
  readonly errors?: readonly ParamProblem[];
  readonly retryAfter?: number;
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Response headers the status calls for (Allow on a 405). */
  readonly headers?: Readonly<Record<string, string>>;
}

export class HttpError extends Error {
  readonly status: number;
  readonly excType: string;
  readonly hint?: string;
  readonly errors?: readonly ParamProblem[];
  readonly retryAfter?: number;
  readonly extra?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
  constructor(status: number, detail: string, options: HttpErrorOptions = {}) {
    super(detail);
    this.name = 'HttpError';
    this.status = status;
    this.excType = options.excType ?? defaultExcType(status);
    this.hint = options.hint;
    this.errors = options.errors;
    this.retryAfter = options.retryAfter;
    this.extra = options.extra;
    this.headers = options.headers;
  }
}

/** A 422 that names every offending parameter. */
export function invalidParams(errors: readonly ParamProblem[]): HttpError {
  const detail = 'Invalid parameters: ' + errors.map((e) => `${e.param} (${e.problem})`).join('; ');
  return new HttpError(422, detail, { excType: 'ValidationError', errors });
}

function defaultExcType(status: number): string {
  switch (status) {
    case 401: return 'Unauthorized';
    case 403: return 'Forbidden';
    case 404: return 'NotFound';
    case 413: return 'PayloadTooLarge';
    case 415: return 'UnsupportedMediaType';
    case 422: return 'ValidationError';
    case 429: return 'TooManyRequests';
    case 503: return 'ServiceUnavailable';
    default: return status >= 500 ? 'InternalError' : 'BadRequest';
  }
}
