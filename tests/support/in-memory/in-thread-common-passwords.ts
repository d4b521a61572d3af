import type { CommonPasswords } from '../../../src/core/ports/common-passwords';
import type { PasswordWorkTurn } from '../../../src/core/ports/password-work';
import { ZxcvbnStrength } from '../../../src/infrastructure/passwords/zxcvbn-strength';

/**
 * The service's strength check (zxcvbn, its lists and matchers), run on the test's own thread
 * rather than the password work's pool; the turns it was asked in are kept for the tests.
 */
export class InThreadCommonPasswords implements CommonPasswords {
  private readonly strength = new ZxcvbnStrength();
  readonly turns: PasswordWorkTurn[] = [];

  async matches(password: string, context: readonly string[], turn: PasswordWorkTurn): Promise<boolean> {
    this.turns.push(turn);
    return this.strength.isGuessable(password, context);
  }
}
