import { DomainError } from '../../core/domain/errors';
import { STATUS_BY_CODE, TITLE_BY_STATUS } from './error-statuses';

export interface FieldError {
  /** The request field at fault, as a path (`proposed_changes[1].time`). */
  readonly field: string;
  readonly message: string;
}

/** An RFC 9457 problem: the one shape of every failure, in every family. */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extensions: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }

  static validation(errors: readonly FieldError[]): Problem {
    const fields = [...new Set(errors.map((error) => error.field))].join(', ');
    return new Problem(400, 'validation_failed', `The request is invalid: check ${fields}.`, { errors });
  }

  static fromDomain(error: DomainError, headers: Readonly<Record<string, string>> = {}): Problem {
    // An unmapped code is a defect of the service (a test keeps the table complete), not the client's.
    return new Problem(STATUS_BY_CODE[error.code] ?? 500, error.code, error.message, error.details, headers);
  }

  toJson(): Record<string, unknown> {
    return {
      type: `/problems/${this.code}`,
      title: TITLE_BY_STATUS[this.status] ?? 'Request failed',
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...this.extensions,
    };
  }
}
