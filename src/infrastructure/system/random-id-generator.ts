import { randomBytes } from 'node:crypto';
import type { IdGenerator, IdPrefix } from '../../core/ports/id-generator';

export const API_KEY_PREFIX_LENGTH = 12;

/** 128 random bits per id (unguessable, so an id is never a way into another account). */
export class RandomIdGenerator implements IdGenerator {
  newId(prefix: IdPrefix): string {
    return `${prefix}_${randomBytes(16).toString('hex')}`;
  }

  /** 256 random bits: long enough that a fast digest of the key is as safe as a slow hash. */
  newApiKey(): { key: string; prefix: string } {
    const key = `tns_${randomBytes(32).toString('base64url')}`;
    return { key, prefix: key.slice(0, API_KEY_PREFIX_LENGTH) };
  }

  /** 256 random bits, like an API key: the cookie is as strong as the key it stands for. */
  newSessionToken(): string {
    return randomBytes(32).toString('base64url');
  }
}
