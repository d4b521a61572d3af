import { isActiveApiKey, type ApiKey } from '../../domain/account';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { pageSize } from '../page-size';

/** The most keys a page of the API's listing holds, and how many it holds unless asked. */
export const MAX_API_KEY_PAGE_SIZE = 100;
export const DEFAULT_API_KEY_PAGE_SIZE = 25;

/** Position after which a page of keys continues (ordered by creation, then id). */
export interface ApiKeyCursor {
  readonly createdAt: Date;
  readonly id: string;
}

export interface ApiKeyPage {
  readonly keys: ApiKey[];
  /** Where the next page starts; null on the last page. */
  readonly next: ApiKeyCursor | null;
}

/**
 * The account's usable keys, oldest first; revoked and expired ones are history, not listed. An
 * account holds at most MAX_ACTIVE_API_KEYS keys of its own and a console key per session, so a
 * page is cut from all of them, read at once.
 */
export class ListApiKeys {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly clock: WallClock,
  ) {}

  async execute(input: { readonly accountId: string }): Promise<ApiKey[]> {
    const now = this.clock.now();
    const keys = await this.transactions.read((repos) => repos.apiKeys.listForAccount(input.accountId));
    return keys.filter((key) => isActiveApiKey(key, now));
  }

  /** A page of them: `limit` keys after `after`. */
  async page(input: {
    readonly accountId: string;
    readonly limit?: number;
    readonly after: ApiKeyCursor | null;
  }): Promise<ApiKeyPage> {
    const limit = pageSize(input.limit, DEFAULT_API_KEY_PAGE_SIZE, MAX_API_KEY_PAGE_SIZE);
    const after = input.after;
    const keys = (await this.execute(input)).filter((key) => after === null || isAfter(key, after));
    const page = keys.slice(0, limit);
    const last = page.at(-1);
    return { keys: page, next: keys.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null };
  }
}

function isAfter(key: ApiKey, cursor: ApiKeyCursor): boolean {
  const at = key.createdAt.getTime() - cursor.createdAt.getTime();
  return at > 0 || (at === 0 && key.id > cursor.id);
}
