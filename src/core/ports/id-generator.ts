import type { ApiKeyKind } from '../domain/account';

export type IdPrefix = 'acc' | 'key' | 'anc' | 'tml' | 'itm' | 'trv' | 'evt' | 'man' | 'ses' | 'whk' | 'msg';

/** Unguessable identifiers and secrets, injected so the core stays deterministic under test. */
export interface IdGenerator {
  /** `<prefix>_<random>` */
  newId(prefix: IdPrefix): string;
  /** A fresh API key secret of this kind, with its recognisable leading characters. */
  newApiKey(kind: ApiKeyKind): { readonly key: string; readonly prefix: string };
  /** A fresh browser session token (256 random bits), sent only in its cookie. */
  newSessionToken(): string;
  /** A fresh webhook signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks). */
  newWebhookSecret(): string;
}
