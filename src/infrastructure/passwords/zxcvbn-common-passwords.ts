import { dictionary } from '@zxcvbn-ts/language-common';
import type { CommonPasswords } from '../../core/ports/common-passwords';

/**
 * The ~49,000 most used passwords of breached password lists, as zxcvbn-ts ranks guesses by them
 * (its `passwords-common` dictionary, all lower case), decompressed once per process.
 */
export class ZxcvbnCommonPasswords implements CommonPasswords {
  private readonly passwords: ReadonlySet<string> = new Set(dictionary['passwords-common']);

  includes(password: string): boolean {
    return this.passwords.has(password);
  }
}
