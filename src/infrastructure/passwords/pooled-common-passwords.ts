import type { CommonPasswords } from '../../core/ports/common-passwords';
import type { PasswordWorkTurn } from '../../core/ports/password-work';
import type { PasswordPool } from './password-pool';

/** The strength check (zxcvbn-strength.ts), run on the password work's pool. */
export class PooledCommonPasswords implements CommonPasswords {
  constructor(private readonly pool: PasswordPool) {}

  matches(password: string, context: readonly string[], turn: PasswordWorkTurn): Promise<boolean> {
    return this.pool.run({ kind: 'strength', password, context }, turn);
  }
}
