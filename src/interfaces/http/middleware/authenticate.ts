import { isWellFormedApiKey } from '../../../core/domain/account';
import { InvalidApiKey, TooManyFailedAttempts } from '../../../core/domain/errors';
import type { AuthenticateApiKey } from '../../../core/use-cases/accounts/authenticate-api-key';
import { clientOf } from '../client-address';
import { Problem } from '../problem';
import { runSteps, type RequestStep } from '../request-step';
import { localsOf } from '../answer-locals';

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;
/** The challenge of every 401 and 403 (RFC 6750), with the realm the service names. */
export const BEARER_REALM = 'Bearer realm="time-navigation"';

/**
 * Resolves `Authorization: Bearer <API_KEY>` to the account it acts for (RFC 6750 answers). A
 * request with no key, or one not of a key's form, costs no lookup and no failed attempt: `keyless`
 * (the anonymous allowance of its address) counts it before it is refused.
 */
export function authenticate(useCase: AuthenticateApiKey, keyless: readonly RequestStep[] = []): RequestStep {
  return async (req, res) => {
    const header = req.headers.authorization;
    const match = header ? BEARER.exec(header) : null;
    if (!match || !isWellFormedApiKey(match[1])) await runSteps(keyless, req, res);
    if (!header) {
      throw new Problem(
        401,
        'missing_api_key',
        'Send your API key as `Authorization: Bearer <API_KEY>`.',
        {},
        {
          'WWW-Authenticate': BEARER_REALM,
        },
      );
    }
    try {
      if (!match) throw new InvalidApiKey();
      localsOf(res).principal = await useCase.execute({ apiKey: match[1], client: clientOf(req.ip) });
    } catch (error) {
      if (error instanceof TooManyFailedAttempts) {
        localsOf(res).limitRefused = 'failed-keys';
        throw Problem.fromDomain(error, { 'Retry-After': String(error.retryAfterSeconds) });
      }
      if (!(error instanceof InvalidApiKey)) throw error;
      throw new Problem(
        401,
        'invalid_api_key',
        'The API key is malformed, unknown or revoked.',
        {},
        {
          'WWW-Authenticate': `${BEARER_REALM}, error="invalid_token"`,
        },
      );
    }
  };
}
