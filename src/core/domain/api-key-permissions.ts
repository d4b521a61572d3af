/**
 * What a restricted API key may do: a level by resource, as Stripe's restricted keys and GitHub's
 * fine-grained tokens give them. A full key (permissions null) may do everything its account may,
 * managing the account's keys included, which no restricted key may (docs/api.md, "Permissions").
 */

/** Every resource a restricted key holds a level of, in the order people read them. */
export const RESOURCES = [
  'clock',
  'travels',
  'anchors',
  'timelines',
  'items',
  'events',
  'paradoxes',
  'webhooks',
] as const;
export type Resource = (typeof RESOURCES)[number];

/** `write` includes `read`. */
export const ACCESS_LEVELS = ['none', 'read', 'write'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

/** A restricted key's level of every resource. */
export type Permissions = Readonly<Record<Resource, AccessLevel>>;

/** What an operation needs of a resource: its scope in the OpenAPI document, `anchors:write`. */
export type ResourceScope = `${Resource}:${Exclude<AccessLevel, 'none'>}`;

/** Managing the account's keys: only a full key has it, so a leaked restricted key cannot mint others. */
export const MANAGE_API_KEYS = 'api_keys:manage';

/** The one permission an authenticated operation needs. */
export type Scope = ResourceScope | typeof MANAGE_API_KEYS;

const RANK: Readonly<Record<AccessLevel, number>> = { none: 0, read: 1, write: 2 };

export function isResource(name: string): name is Resource {
  return (RESOURCES as readonly string[]).includes(name);
}

export function isAccessLevel(name: string): name is AccessLevel {
  return (ACCESS_LEVELS as readonly string[]).includes(name);
}

/** Whether a key with these permissions (null: a full key) may do what `scope` names. */
export function grants(permissions: Permissions | null, scope: Scope): boolean {
  if (permissions === null) return true;
  if (scope === MANAGE_API_KEYS) return false;
  const [resource, level] = splitScope(scope);
  return RANK[permissions[resource]] >= RANK[level];
}

function splitScope(scope: ResourceScope): [Resource, AccessLevel] {
  const at = scope.indexOf(':');
  const [resource, level] = [scope.slice(0, at), scope.slice(at + 1)];
  if (!isResource(resource) || !isAccessLevel(level)) throw new RangeError(`not a scope: ${scope}`);
  return [resource, level];
}

/** The resource a scope is about, or null for managing keys. */
export function resourceOf(scope: Scope): Resource | null {
  return scope === MANAGE_API_KEYS ? null : splitScope(scope)[0];
}

/**
 * A restricted key's permissions from the levels given by resource: a resource left out is `none`.
 * The names and levels are checked where they arrive (the API's DTO, the dashboard's form).
 */
export function permissionsOf(given: Readonly<Partial<Record<Resource, AccessLevel>>>): Permissions {
  return {
    clock: given.clock ?? 'none',
    travels: given.travels ?? 'none',
    anchors: given.anchors ?? 'none',
    timelines: given.timelines ?? 'none',
    items: given.items ?? 'none',
    events: given.events ?? 'none',
    paradoxes: given.paradoxes ?? 'none',
    webhooks: given.webhooks ?? 'none',
  };
}

/** Whether two keys may do the same: both full, or restricted with the same level of every resource. */
export function samePermissions(a: Permissions | null, b: Permissions | null): boolean {
  if (a === null || b === null) return a === b;
  return RESOURCES.every((resource) => a[resource] === b[resource]);
}

/** Every scope an operation may name, for the OpenAPI document's description and its tests. */
export function everyScope(): Scope[] {
  return [
    ...RESOURCES.flatMap((resource): ResourceScope[] => [`${resource}:read`, `${resource}:write`]),
    MANAGE_API_KEYS,
  ];
}
