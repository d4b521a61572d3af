import { everyScope, type Scope } from '../../../src/core/domain/api-key-permissions';
import type { OpenApiDocument, OpenApiOperation } from './openapi-contract';

const KNOWN: ReadonlySet<string> = new Set(everyScope());

/** Whether a permission read from the document is one the service knows. */
export function isKnownScope(name: unknown): name is Scope {
  return typeof name === 'string' && KNOWN.has(name);
}

/**
 * The one permission an operation's `security` names, null for an operation open to anyone
 * (`security: []`), or what is wrong with it: no requirement, several, another scheme, no scope,
 * several scopes, or one the service does not know.
 */
export function declaredScope(operation: OpenApiOperation): { scope: Scope | null } | { fault: string } {
  const security = operation.security;
  if (!Array.isArray(security)) return { fault: 'declares no security' };
  if (security.length === 0) return { scope: null };
  if (security.length > 1) return { fault: `declares ${security.length} security requirements` };
  const [requirement] = security;
  const schemes = typeof requirement === 'object' && requirement !== null ? Object.entries(requirement) : [];
  if (schemes.length !== 1 || schemes[0]?.[0] !== 'bearerAuth')
    return { fault: 'names a scheme other than bearerAuth' };
  const scopes: unknown = schemes[0][1];
  if (!Array.isArray(scopes) || scopes.length !== 1)
    return { fault: `names ${Array.isArray(scopes) ? scopes.length : 'no list of'} scopes, not one` };
  const [scope] = scopes;
  return isKnownScope(scope) ? { scope } : { fault: `names the unknown scope ${String(scope)}` };
}

/** Every operation of the document whose `security` is not one known permission (or none at all). */
export function scopeFaults(document: Pick<OpenApiDocument, 'paths'>): string[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, operation]) => {
      const declared = declaredScope(operation);
      return 'fault' in declared ? [`${method.toUpperCase()} ${path} ${declared.fault}`] : [];
    }),
  );
}
