// Why a transfer was refused or failed, as data: the plugins turn it into an HTTP answer that
// names the field, the adapter itself knows nothing about HTTP.

export type TransferProblem =
  | 'scheme' // not http or https
  | 'address' // the guard refused the destination address
  | 'redirect' // too many redirects, or a bad Location
  | 'size' // over the size cap
  | 'timeout' // connect or read timeout
  | 'status' // the remote answered with a non-2xx status
  | 'network'; // any other connection failure

export class TransferError extends Error {
  readonly problem: TransferProblem;
  constructor(problem: TransferProblem, message: string) {
    super(message);
    this.name = 'TransferError';
    this.problem = problem;
  }
}
