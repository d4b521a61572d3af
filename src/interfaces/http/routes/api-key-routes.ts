import type { Container } from 'inversify';
import { MAX_ACTIVE_API_KEYS } from '../../../core/domain/account';
import { MANAGE_API_KEYS, permissionsOf } from '../../../core/domain/api-key-permissions';
import { CreateApiKey } from '../../../core/use-cases/api-keys/create-api-key';
import { ListApiKeys } from '../../../core/use-cases/api-keys/list-api-keys';
import { RevokeApiKey } from '../../../core/use-cases/api-keys/revoke-api-key';
import { UpdateApiKey } from '../../../core/use-cases/api-keys/update-api-key';
import { creationCursorOf, nextCreationCursor } from '../cursor';
import { ApiKeyPageQueryDto, ApiKeyTermsDto } from '../dtos/api-keys.dto';
import { ApiKeyPageResponse, ApiKeyResponse, NewApiKeyResponse } from '../dtos/responses/api-keys.response';
import { EXAMPLE_IDS } from '../dtos/responses/ids';
import { presentApiKey, presentNewApiKey } from '../presenters/api-keys';
import { Problem } from '../problem';
import { defineRoute, type Route } from '../route';

const family = 'api-keys';
const ONE_KEY = { key_id: EXAMPLE_IDS.apiKey };
const FULL_KEYS_ONLY =
  'Only a full key (`tns_`) may manage keys: a restricted key is refused (`insufficient_permissions`), ' +
  'whatever its permissions.';

/**
 * The account's API keys, the same use cases as the dashboard's key forms. DELETE comes last: a
 * client walking the table acts on a key before it revokes it.
 */
export function apiKeyRoutes(container: Container): Route[] {
  return [createApiKeyRoute, listApiKeysRoute, updateApiKeyRoute, revokeApiKeyRoute].map((route) => route(container));
}

/** POST /v1/api-keys: Create a key, full or restricted. */
function createApiKeyRoute(container: Container): Route {
  const createApiKey = container.get(CreateApiKey);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/api-keys',
      operationId: 'createApiKey',
      scope: MANAGE_API_KEYS,
      family,
      summary: 'Create a key: restricted to the permissions given, or full without them.',
      keepsNoAnswer: true,
      body: ApiKeyTermsDto,
      docs: {
        description:
          'Creates a key of the account. With `permissions`, a restricted key (`tnr_`) holding the level given ' +
          'of each resource, `none` for a resource left out; without, a full key (`tns_`). The answer is the only ' +
          `one that carries the whole key. An account keeps at most ${MAX_ACTIVE_API_KEYS} keys of its own ` +
          `(\`too_many_api_keys\`). It takes no \`Idempotency-Key\` (\`validation_failed\` naming it): a kept ` +
          'answer would keep the key; if an answer is lost, list the keys and revoke the one not received. ' +
          FULL_KEYS_ONLY,
        status: 201,
        response: NewApiKeyResponse,
        errors: ['too_many_api_keys'],
        example: { name: 'Status widget', permissions: { anchors: 'write', events: 'read' } },
      },
    },
    async ({ body }, { accountId }) => {
      const issued = await createApiKey.execute({
        accountId,
        name: body.name?.trim() ?? null,
        permissions: body.permissions ? permissionsOf(body.permissions) : null,
      });
      return { status: 201, body: presentNewApiKey(issued) };
    },
  );
}

/** GET /v1/api-keys: List the keys, oldest first, one page at a time. */
function listApiKeysRoute(container: Container): Route {
  const listApiKeys = container.get(ListApiKeys);
  return defineRoute(
    {
      method: 'get',
      path: '/v1/api-keys',
      operationId: 'listApiKeys',
      scope: MANAGE_API_KEYS,
      family,
      summary: 'List the keys, oldest first, one page at a time.',
      query: ApiKeyPageQueryDto,
      docs: {
        description:
          "The account's usable keys, oldest first, a page at a time (pass `next_cursor` back as `cursor`), the " +
          "try-it console's session keys included; never a key itself, only its first characters. " +
          FULL_KEYS_ONLY,
        status: 200,
        response: ApiKeyPageResponse,
        errors: [],
        example: { limit: 10 },
      },
    },
    async ({ query }, { accountId }) => {
      const page = await listApiKeys.page({ accountId, limit: query.limit, after: creationCursorOf(query.cursor) });
      return {
        status: 200,
        body: { api_keys: page.keys.map(presentApiKey), next_cursor: nextCreationCursor(page.next) },
      };
    },
  );
}

/** PATCH /v1/api-keys/:key_id: Rename a key, or change a restricted key's permissions. */
function updateApiKeyRoute(container: Container): Route {
  const updateApiKey = container.get(UpdateApiKey);
  return defineRoute(
    {
      method: 'patch',
      path: '/v1/api-keys/:key_id',
      operationId: 'updateApiKey',
      scope: MANAGE_API_KEYS,
      family,
      summary: "Rename a key, or change a restricted key's permissions.",
      body: ApiKeyTermsDto,
      docs: {
        description:
          "Changes a key's `name`, a restricted key's `permissions`, or both. The permissions given replace all of " +
          "the key's (`none` for a resource left out), and every process of the service answers the key's next " +
          'request by them. A full key is never given permissions (`api_key_not_restricted`): create a restricted ' +
          "key instead. A revoked key, or another account's, answers `api_key_not_found`. " +
          FULL_KEYS_ONLY,
        status: 200,
        response: ApiKeyResponse,
        errors: ['api_key_not_found', 'api_key_not_restricted'],
        example: { ...ONE_KEY, permissions: { events: 'read' } },
      },
    },
    async ({ params, body }, { accountId }) => {
      if (body.name === undefined && body.permissions === undefined)
        throw Problem.validation([{ field: '(body)', message: 'give name, permissions or both' }]);
      const key = await updateApiKey.execute({
        accountId,
        keyId: params.key_id,
        name: body.name?.trim(),
        permissions: body.permissions && permissionsOf(body.permissions),
      });
      return { status: 200, body: presentApiKey(key) };
    },
  );
}

/** DELETE /v1/api-keys/:key_id: Revoke a key. */
function revokeApiKeyRoute(container: Container): Route {
  const revokeApiKey = container.get(RevokeApiKey);
  return defineRoute(
    {
      method: 'delete',
      path: '/v1/api-keys/:key_id',
      operationId: 'revokeApiKey',
      scope: MANAGE_API_KEYS,
      family,
      summary: 'Revoke a key.',
      docs: {
        description:
          'Revokes the key: its next request, in any process of the service, is refused (`invalid_api_key`), and ' +
          'its event streams end. The key the request is sent with may revoke itself. Sent again, it answers ' +
          "`api_key_not_found`, as for another account's key. " +
          FULL_KEYS_ONLY,
        status: 204,
        response: null,
        errors: ['api_key_not_found'],
        example: ONE_KEY,
      },
    },
    async ({ params }, { accountId }) => {
      await revokeApiKey.execute({ accountId, keyId: params.key_id });
      return { status: 204, body: undefined };
    },
  );
}
