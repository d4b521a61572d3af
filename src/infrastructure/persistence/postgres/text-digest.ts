import { createHash } from 'node:crypto';
import { textKey } from '../../../core/domain/text-key';

/**
 * What the database indexes for a searchable name or place: a SHA-256 of its textKey. Fixed size,
 * so text of any length or script fits an index row, and equal keys still mean equal names.
 */
export function textDigest(text: string): string {
  return createHash('sha256').update(textKey(text)).digest('hex');
}
