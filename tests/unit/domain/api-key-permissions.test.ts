import { apiKeyKindOf, isWellFormedApiKey } from '../../../src/core/domain/account';
import {
  everyScope,
  grants,
  MANAGE_API_KEYS,
  permissionsOf,
  resourceOf,
  RESOURCES,
} from '../../../src/core/domain/api-key-permissions';

describe('API key permissions', () => {
  const readsEvents = permissionsOf({ events: 'read', anchors: 'write' });

  it('grants a full key everything, managing keys included', () => {
    expect(everyScope().every((scope) => grants(null, scope))).toBe(true);
  });

  it('grants a restricted key read at read or write, write at write only, and never key management', () => {
    expect(grants(readsEvents, 'events:read')).toBe(true);
    expect(grants(readsEvents, 'events:write')).toBe(false);
    expect(grants(readsEvents, 'anchors:read')).toBe(true);
    expect(grants(readsEvents, 'anchors:write')).toBe(true);
    expect(grants(readsEvents, 'clock:read')).toBe(false);
    expect(grants(permissionsOf(Object.fromEntries(RESOURCES.map((r) => [r, 'write']))), MANAGE_API_KEYS)).toBe(false);
  });

  it('makes a resource left out none', () => {
    expect(permissionsOf({ items: 'read' })).toEqual({
      clock: 'none',
      travels: 'none',
      anchors: 'none',
      timelines: 'none',
      items: 'read',
      events: 'none',
      paradoxes: 'none',
      webhooks: 'none',
    });
  });

  it('names the resource of each scope; managing keys has none', () => {
    expect(resourceOf('paradoxes:read')).toBe('paradoxes');
    expect(resourceOf(MANAGE_API_KEYS)).toBeNull();
    expect(everyScope()).toHaveLength(2 * RESOURCES.length + 1);
  });

  it('starts a full key with tns_ and a restricted one with tnr_, both well formed', () => {
    expect(apiKeyKindOf(null)).toBe('tns_');
    expect(apiKeyKindOf(readsEvents)).toBe('tnr_');
    const body = 'A'.repeat(43);
    expect([`tns_${body}`, `tnr_${body}`, `tnx_${body}`, `tnr_${body}A`].map(isWellFormedApiKey)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
