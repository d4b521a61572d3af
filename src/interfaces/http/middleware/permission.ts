import { trace } from '@opentelemetry/api';
import { grants, type Scope } from '../../../core/domain/api-key-permissions';
import { InsufficientPermissions } from '../../../core/domain/errors';
import { localsOf } from '../answer-locals';
import { Problem } from '../problem';
import type { RequestStep } from '../request-step';
import { BEARER_REALM } from './authenticate';

/**
 * Refuses a request whose key lacks the permission its operation needs, right after the key is
 * authenticated and counted, before its body is parsed or anything acts: a refusal changes
 * nothing and is never kept under an Idempotency-Key. The answer names the permission as RFC 6750
 * names a scope; the request's log line and `tns_permission_refusals_total` name it too. A check
 * of the cached key's permissions: no database round trip.
 */
export function requirePermission(scope: Scope): RequestStep {
  return (_req, res) => {
    const locals = localsOf(res);
    const principal = locals.principal;
    // Mounted behind authentication only: a route without a principal refuses it there.
    if (!principal || grants(principal.permissions, scope)) return;
    locals.permissionRefused = scope;
    trace.getActiveSpan()?.addEvent('permission refused', { 'tns.permission': scope });
    throw Problem.fromDomain(new InsufficientPermissions(scope, principal.apiKeyId), {
      'WWW-Authenticate': `${BEARER_REALM}, error="insufficient_scope", scope="${scope}"`,
    });
  };
}
