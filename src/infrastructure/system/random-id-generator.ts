import { randomBytes, randomFillSync } from 'node:crypto';
import type { ApiKeyKind } from '../../core/domain/account';
import type { IdGenerator, IdPrefix } from '../../core/ports/id-generator';

export const API_KEY_PREFIX_LENGTH = 12;

const ID_BYTES = 16;
/**
 * Random bytes are drawn for 256 ids at a time, as Node's randomUUID does: one draw costs about as
 * much as a draw of 16 bytes (5 µs against 7 µs on the benchmark machine), and a write makes
 * several ids. Only ids come from the batch; keys and session tokens, which are secrets, are drawn
 * each on their own and kept nowhere.
 */
const BATCH_BYTES = ID_BYTES * 256;

/** 128 random bits per id (unguessable, so an id is never a way into another account). */
export class RandomIdGenerator implements IdGenerator {
  private readonly batch = Buffer.alloc(BATCH_BYTES);
  private offset = BATCH_BYTES;

  newId(prefix: IdPrefix): string {
    if (this.offset === BATCH_BYTES) {
      randomFillSync(this.batch);
      this.offset = 0;
    }
    const start = this.offset;
    this.offset += ID_BYTES;
    return `${prefix}_${this.batch.toString('hex', start, this.offset)}`;
  }

  /** 256 random bits: long enough that a fast digest of the key is as safe as a slow hash. */
  newApiKey(kind: ApiKeyKind): { key: string; prefix: string } {
    const key = `${kind}${randomBytes(32).toString('base64url')}`;
    return { key, prefix: key.slice(0, API_KEY_PREFIX_LENGTH) };
  }

  /** 256 random bits, like an API key: the cookie is as strong as the key it stands for. */
  newSessionToken(): string {
    return randomBytes(32).toString('base64url');
  }

  /** Standard Webhooks' form: the receiver base64-decodes what follows the prefix to get the HMAC key. */
  newWebhookSecret(): string {
    return `whsec_${randomBytes(32).toString('base64')}`;
  }
}
