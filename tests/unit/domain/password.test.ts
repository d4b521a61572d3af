import { BlankPassword, CommonPassword, ShortPassword } from '../../../src/core/domain/errors';
import { checkNewPassword, normalisePassword, passwordContext } from '../../../src/core/domain/password';
import { InThreadCommonPasswords } from '../../support/in-memory';

// The real list and matchers: the rule is what they make of a password.
const common = new InThreadCommonPasswords();
const context = passwordContext('ada.lovelace@example.com');
const turn = { clientAddress: '192.0.2.1', knownDevice: false };
const check = (password: string) => checkNewPassword(password, common, context, turn);

describe('normalisePassword', () => {
  it.each([
    ['a zero-width space', 'pass\u200bword', 'password'],
    ['a direction mark and a joiner', '\u200epass\u200dword', 'password'],
    ['full-width letters', '\uff50\uff41\uff53\uff53', 'pass'],
    ['a decomposed accent', 'cafe\u0301', 'caf\u00e9'],
    ['a ligature', '\ufb01ne', 'fine'],
  ])('folds %s into one spelling', (_label, typed, normalised) => {
    expect(normalisePassword(typed)).toBe(normalised);
  });
});

describe('checkNewPassword', () => {
  it.each(['        ', '\t\t\t\t\t\t\t\t', '\u00a0\u2003\u3000 \u00a0\u2003\u3000 ', '\u200b'.repeat(20)])(
    'refuses white space or invisible characters alone (%j) as password_blank',
    async (password) => {
      await expect(check(password)).rejects.toThrow(BlankPassword);
    },
  );

  it.each([
    ['14 characters', 'gV7#kq9!Lm2@xZ'],
    ['white space around 14', '   gV7#kq9!Lm2@xZ   '],
    ['14 after its zero-width spaces go', 'gV7#kq9!Lm2@xZ\u200b'],
    ['a password under 8 (NIST 800-63B-4 asks for 15 as the only factor)', 'Password123!'],
    ['8 Cyrillic look-alikes', 'p\u0430ssword'],
  ])('refuses %s as password_too_short', async (_label, password) => {
    await expect(check(password)).rejects.toThrow(ShortPassword);
  });

  it('counts characters as code points: 15 emoji are 15 characters, 14 are too few', async () => {
    const five = '\u{1F680}\u{1F30D}\u{1F30B}\u{1F3D4}\u{1F30A}';
    await expect(check(five.repeat(3))).resolves.toBeUndefined();
    // 28 UTF-16 units: counted in units, it would pass.
    await expect(check(five.repeat(3).slice(0, -2))).rejects.toThrow(ShortPassword);
  });

  it('reads the first 64 characters for what guessers try: its time stays bounded', async () => {
    await expect(check('x'.repeat(256))).rejects.toThrow(CommonPassword);
    await expect(check(`${'gV7#kq9!Lm2@xZ4p'.repeat(4)}passwordpassword`)).resolves.toBeUndefined();
  });

  it.each([
    ['a breached password repeated', 'passwordpassword'],
    ['one in l33t, repeated', 'P@ssw0rdP@ssw0rd!'],
    ['a common one with digits and a symbol, twice', 'Password123!Password123!'],
    ['256 times one letter', 'x'.repeat(256)],
    ['a keyboard run', 'qwertyuiopasdfgh'],
    ['a sequence', 'abcdefghijklmnop'],
    ['digits in sequence', '1234567890123456'],
    ['the email', 'ada.lovelace@example.com'],
    ['the mailbox, repeated', 'ada.lovelaceada.lovelace'],
    ['the service name', 'timenavigation1'],
    ['a zero-width space inside a breached password, repeated', 'password\u200bpassword\u200b'],
  ])('refuses %s as password_too_common', async (_label, password) => {
    await expect(check(password)).rejects.toThrow(CommonPassword);
  });

  it.each(['correct horse battery', 'my cat is called Fluffy', 'gV7#kq9!Lm2@xZ4p', 'sunshine-and-rain-2024'])(
    'accepts %j: long, and not made of what guessers try first',
    async (password) => {
      await expect(check(password)).resolves.toBeUndefined();
    },
  );

  it('gives each refusal its own stable code', () => {
    expect([new BlankPassword().code, new ShortPassword(15).code, new CommonPassword().code]).toEqual([
      'password_blank',
      'password_too_short',
      'password_too_common',
    ]);
  });
});
