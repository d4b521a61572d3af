export interface Account {
  readonly id: string;
  /** Stored lower-cased: two spellings of one mailbox are one account. */
  readonly email: string;
  readonly passwordHash: string;
  readonly createdAt: Date;
}

export interface ApiKey {
  readonly id: string;
  readonly accountId: string;
  /** Leading characters of the key, enough for its owner to recognise it and useless to anyone else. */
  readonly prefix: string;
  readonly digest: string;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** `tns_` and 43 base64url characters (256 random bits): recognisable by secret scanners. */
const API_KEY_FORMAT = /^tns_[A-Za-z0-9_-]{43}$/;

export function isWellFormedApiKey(text: string): boolean {
  return API_KEY_FORMAT.test(text);
}
