import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import type { CommonPasswords } from '../../core/ports/common-passwords';

/**
 * Below zxcvbn's score 3 a password falls within about 10^8 guesses ordered by its matchers: "safely
 * unguessable" starts at 3 in its own scale. A long password scores below it only when it is
 * made of what guessers try (a breached password or word repeated, a run, a date, l33t).
 */
const LOWEST_ACCEPTED_SCORE = 3;

/**
 * The matchers read the first 64 characters: their time grows faster than the length (36 ms for 64
 * random digits, 260 ms for 256, measured), and a password whose first 64 characters are not
 * guessable is not either. Run on the event loop, so it must stay small.
 */
const MATCHED_LENGTH = 64;

/**
 * zxcvbn-ts with its language-independent lists: the ~49,000 most used passwords of breached lists
 * (`passwords-common`), common words, names and keyboard layouts; its matchers find them inside a
 * password, in any case, reversed, in l33t, repeated, and next to sequences and dates. Built once
 * per process.
 */
export class ZxcvbnCommonPasswords implements CommonPasswords {
  private readonly zxcvbn = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs, maxLength: MATCHED_LENGTH });

  matches(password: string, context: readonly string[]): boolean {
    return this.zxcvbn.check(password, [...context]).score < LOWEST_ACCEPTED_SCORE;
  }
}
