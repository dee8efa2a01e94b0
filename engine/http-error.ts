// The one error type the engine and plugins throw for HTTP outcomes they decide themselves
// (validation, missing session, limits). It is made by serviceError (engine/service-errors.ts),
// whose registry decides status and exc_type by code; upstream failures stay UpstreamError and are
// mapped by manifest/errors.yaml; nothing else invents statuses.

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
    this.excType = options.excType ?? (status >= 500 ? 'InternalError' : 'BadRequest');
    this.hint = options.hint;
    this.errors = options.errors;
    this.retryAfter = options.retryAfter;
    this.extra = options.extra;
    this.headers = options.headers;
  }
}
