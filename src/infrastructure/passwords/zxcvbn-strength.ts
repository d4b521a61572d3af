import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/**
 * Below zxcvbn's score 3 a password falls within about 10^8 guesses ordered by its matchers: "safely
 * unguessable" starts at 3 in its own scale. A long password scores below it only when it is
 * made of what guessers try (a breached password or word repeated, a run, a date, l33t).
 */
const LOWEST_ACCEPTED_SCORE = 3;

/**
 * The matchers read the first 64 characters: their time grows faster than the length (36 ms for 64
 * random digits, 260 ms for 256, measured), and a password whose first 64 characters are not
 * guessable is not either.
 */
const MATCHED_LENGTH = 64;

/**
 * zxcvbn-ts with its language-independent lists: the ~49,000 most used passwords of breached lists
 * (`passwords-common`), common words, names and keyboard layouts; its matchers find them inside a
 * password, in any case, reversed, in l33t, repeated, and next to sequences and dates. Built once
 * per thread of the password work's pool, which runs it (password-thread.ts): tens of milliseconds
 * of CPU a check, kept off the event loop.
 */
export class ZxcvbnStrength {
  private readonly zxcvbn = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs, maxLength: MATCHED_LENGTH });

  /** Whether a guesser reaches the (normalised) password early; `context`: what the account is known by. */
  isGuessable(password: string, context: readonly string[]): boolean {
    return this.zxcvbn.check(password, [...context]).score < LOWEST_ACCEPTED_SCORE;
  }
}
