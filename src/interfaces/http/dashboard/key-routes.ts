import type { Request, Router } from 'express';
import type { Container } from 'inversify';
import { API_KEY_NAME_MAX_LENGTH } from '../../../core/domain/account';
import {
  isAccessLevel,
  isResource,
  permissionsOf,
  type AccessLevel,
  type Permissions,
  type Resource,
} from '../../../core/domain/api-key-permissions';
import { ApiKeyNotFound, ConsoleKeyNotRollable, TooManyApiKeys } from '../../../core/domain/errors';
import { CreateApiKey } from '../../../core/use-cases/api-keys/create-api-key';
import { RevokeApiKey } from '../../../core/use-cases/api-keys/revoke-api-key';
import { RollApiKey } from '../../../core/use-cases/api-keys/roll-api-key';
import { formField, statusOf } from './forms';
import type { SignedInPages } from './signed-in';

/**
 * The dashboard page and its key forms: create (full or restricted), roll and revoke the account's
 * API keys, by the use cases /v1/api-keys runs.
 */
export function addKeyRoutes(router: Router, container: Container, pages: SignedInPages): void {
  const createApiKey = container.get(CreateApiKey);
  const rollApiKey = container.get(RollApiKey);
  const revokeApiKey = container.get(RevokeApiKey);

  router.get('/dashboard', async (req, res) => {
    const signedIn = await pages.current(req, res);
    if (!signedIn) return res.redirect(303, '/login?next=/dashboard');
    await pages.render(res, 200, signedIn);
  });

  router.post(
    '/dashboard/keys',
    ...pages.formPost(async (req, res, signedIn) => {
      const given = formField(req, 'name') ?? '';
      const name = given.trim();
      // Empty means unnamed; spaces alone are a name typed wrong, as in the API's text fields.
      if (given !== '' && name === '') {
        return pages.render(res, 400, signedIn, {
          error: 'A key name cannot be only white space: leave it empty for an unnamed key.',
        });
      }
      if (name.length > API_KEY_NAME_MAX_LENGTH) {
        return pages.render(res, 400, signedIn, {
          error: `A key name has at most ${API_KEY_NAME_MAX_LENGTH} characters.`,
        });
      }
      const access = accessOf(req);
      if ('fault' in access) return pages.render(res, 400, signedIn, { error: access.fault });
      try {
        const issued = await createApiKey.execute({
          accountId: signedIn.signedIn.session.accountId,
          name: name || null,
          permissions: access.permissions,
        });
        await pages.render(res, 201, signedIn, { fresh: issued });
      } catch (error) {
        if (!(error instanceof TooManyApiKeys)) throw error;
        await pages.render(res, statusOf(error), signedIn, { error: error.message });
      }
    }),
  );

  router.post(
    '/dashboard/keys/:keyId/roll',
    ...pages.formPost(async (req, res, signedIn) => {
      const keyId = keyIdParam(req);
      try {
        const issued = await rollApiKey.execute({ accountId: signedIn.signedIn.session.accountId, keyId });
        await pages.render(res, 200, signedIn, { fresh: { ...issued, replaced: keyId } });
      } catch (error) {
        if (!(error instanceof ApiKeyNotFound || error instanceof ConsoleKeyNotRollable)) throw error;
        await pages.render(res, statusOf(error), signedIn, { error: error.message });
      }
    }),
  );

  router.post(
    '/dashboard/keys/:keyId/revoke',
    ...pages.formPost(async (req, res, signedIn) => {
      const keyId = keyIdParam(req);
      try {
        const revoked = await revokeApiKey.execute({ accountId: signedIn.signedIn.session.accountId, keyId });
        await pages.render(res, 200, signedIn, {
          message: `Key ${revoked.prefix}… is revoked: requests with it are refused from now on.`,
        });
      } catch (error) {
        if (!(error instanceof ApiKeyNotFound)) throw error;
        await pages.render(res, statusOf(error), signedIn, { error: error.message });
      }
    }),
  );
}

const PERMISSION_FIELD = /^permission_(.*)$/;

/**
 * The access the form asks for: `full` (the default), or `restricted` with a level of each resource
 * from its `permission_<resource>` field (`none` when absent). What no form of the page sends (an
 * unknown access, resource or level) is refused, naming it.
 */
function accessOf(req: Request): { readonly permissions: Permissions | null } | { readonly fault: string } {
  const access = formField(req, 'access') ?? 'full';
  if (access !== 'full' && access !== 'restricted') return { fault: `Access is full or restricted, not '${access}'.` };
  const body: unknown = req.body;
  const fields = typeof body === 'object' && body !== null ? Object.keys(body) : [];
  const given: Partial<Record<Resource, AccessLevel>> = {};
  for (const field of fields) {
    const resource = PERMISSION_FIELD.exec(field)?.[1];
    if (resource === undefined) continue;
    if (!isResource(resource)) return { fault: `There is no resource '${resource}' to give a permission of.` };
    const level = formField(req, field) ?? '';
    if (!isAccessLevel(level)) return { fault: `The level of ${resource} is none, read or write, not '${level}'.` };
    given[resource] = level;
  }
  return { permissions: access === 'full' ? null : permissionsOf(given) };
}

/** A key id from the path, or '' (which names no key) when it cannot be one. */
function keyIdParam(req: Request): string {
  const keyId = String(req.params.keyId);
  return /^key_[0-9a-f]{32}$/.test(keyId) ? keyId : '';
}
