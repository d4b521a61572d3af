import type { Permissions } from './api-key-permissions';

export interface Account {
  readonly id: string;
  /** Stored lower-cased: two spellings of one mailbox are one account. */
  readonly email: string;
  readonly passwordHash: string;
  /** Its password was accepted under an earlier rule that refuses it now (found at its sign-in). */
  readonly passwordChangeDue: boolean;
  /**
   * Moves on at each password change. A browser's device cookie carries the stamp it was issued
   * with, so a change ends the cookies of every browser but the one that made it (docs/dashboard.md).
   */
  readonly deviceStamp: number;
  readonly createdAt: Date;
}

/** A new account's device stamp; each password change adds one. */
export const FIRST_DEVICE_STAMP = 0;

/**
 * Whether a browser's device cookie (its signature and age already checked, `presentedStamp` the
 * stamp it carries; null when it has none for this email) is one of the account as it is now.
 */
export function isKnownDevice(account: Pick<Account, 'deviceStamp'>, presentedStamp: number | null): boolean {
  return presentedStamp !== null && presentedStamp === account.deviceStamp;
}

export interface ApiKey {
  readonly id: string;
  readonly accountId: string;
  /** Leading characters of the key, enough for its owner to recognise it and useless to anyone else. */
  readonly prefix: string;
  readonly digest: string;
  /** The owner's label for the key (dashboard); null when none was given. */
  readonly name: string | null;
  readonly createdAt: Date;
  /** Recorded at most once per `LAST_USE_RESOLUTION_MS`, so authenticating rarely writes. */
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  /** Only a browser session's console key expires: it must not outlive its session. */
  readonly expiresAt: Date | null;
  /** A restricted key's level by resource; null for a full key (api-key-permissions.ts). */
  readonly permissions: Permissions | null;
}

/** Name of the key the try-it console uses for a browser session. */
export const CONSOLE_KEY_NAME = 'console (session)';

/** Last use is worth knowing to the minute, not worth a write on every request. */
export const LAST_USE_RESOLUTION_MS = 60_000;

/** Names are labels for people; long enough to be useful, short enough for a table cell. */
export const API_KEY_NAME_MAX_LENGTH = 100;

/**
 * An account keeps at most this many usable keys of its own (console keys come and go with
 * sessions), so nobody mints keys without end.
 */
export const MAX_ACTIVE_API_KEYS = 25;

/** Usable for requests: neither revoked nor past its expiry. */
export function isActiveApiKey(key: Pick<ApiKey, 'revokedAt' | 'expiresAt'>, now: Date): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > now.getTime());
}

/** Whether a use of the key at `now` is worth recording: its last recorded use is a resolution or more ago. */
export function isLastUseDue(key: Pick<ApiKey, 'lastUsedAt'>, now: Date): boolean {
  return key.lastUsedAt === null || key.lastUsedAt.getTime() <= now.getTime() - LAST_USE_RESOLUTION_MS;
}

/** A console key belongs to a browser session and ends with it; the owner revokes it, never rolls it. */
export function isConsoleKey(key: ApiKey): boolean {
  return key.expiresAt !== null;
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * How a key starts: `tns_` for a full key, `tnr_` for a restricted one, so that its holder, a log
 * and a secret scanner tell them apart without asking the service.
 */
export type ApiKeyKind = 'tns_' | 'tnr_';

export function apiKeyKindOf(permissions: Permissions | null): ApiKeyKind {
  return permissions === null ? 'tns_' : 'tnr_';
}

/** Its kind and 43 base64url characters (256 random bits): recognisable by secret scanners. */
const API_KEY_FORMAT = /^tn[sr]_[A-Za-z0-9_-]{43}$/;

export function isWellFormedApiKey(text: string): boolean {
  return API_KEY_FORMAT.test(text);
}
