import type { AttemptError } from '../../core/domain/webhook-attempt';

/**
 * OpenSSL's and Node's TLS failures: a certificate not trusted, for another name, expired; a
 * handshake refused; EPROTO, OpenSSL's record layer meeting what is no TLS (a plain HTTP server).
 */
const TLS_FAILURE =
  /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|EPROTO$)/;

/**
 * A failed connection or exchange as the deliveries listing names it, from Node's error code.
 * A timeout is not read here: the attempt's own deadline says it (see the sender).
 */
export function attemptError(error: unknown): AttemptError {
  const code = codeOf(error);
  if (code === undefined) return 'network';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (TLS_FAILURE.test(code)) return 'tls';
  return 'network';
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if ('code' in error && typeof error.code === 'string') return error.code;
  // Every address of a host tried in turn (autoSelectFamily): the first one's failure stands for them.
  if (error instanceof AggregateError) return codeOf(error.errors[0]);
  return undefined;
}
