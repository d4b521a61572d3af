import type { ApiKeyKind } from '../../../src/core/domain/account';
import type { IdGenerator, IdPrefix } from '../../../src/core/ports/id-generator';

export const API_KEY_PREFIX_LENGTH = 12;

/**
 * Deterministic ids `<prefix>_<n>`, numbered per prefix from 1, and well-formed API keys
 * (`tns_` or `tnr_` and 43 characters) that begin with their number: `tns_000001_test000...`; webhook
 * secrets likewise numbered.
 */
export class SequentialIdGenerator implements IdGenerator {
  private readonly counters = new Map<string, number>();

  newId(prefix: IdPrefix): string {
    return `${prefix}_${this.next(prefix)}`;
  }

  newApiKey(kind: ApiKeyKind): { readonly key: string; readonly prefix: string } {
    const key = `${kind}${String(this.next('api-key')).padStart(6, '0')}${'_test'.padEnd(37, '0')}`;
    return { key, prefix: key.slice(0, API_KEY_PREFIX_LENGTH) };
  }

  newSessionToken(): string {
    return `session-token-${this.next('session-token')}`;
  }

  /** A well-formed secret (32 bytes, base64) that begins with its number. */
  newWebhookSecret(): string {
    const bytes = Buffer.alloc(32);
    bytes.writeUInt32BE(this.next('webhook-secret'));
    return `whsec_${bytes.toString('base64')}`;
  }

  private next(counter: string): number {
    const n = (this.counters.get(counter) ?? 0) + 1;
    this.counters.set(counter, n);
    return n;
  }
}
