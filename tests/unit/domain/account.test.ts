import { isWellFormedApiKey, normaliseEmail } from '../../../src/core/domain/account';

describe('normaliseEmail', () => {
  it('trims and lower-cases, so two spellings of one mailbox are one account', () => {
    expect(normaliseEmail('  Ada.Lovelace@Example.COM ')).toBe('ada.lovelace@example.com');
  });
});

describe('isWellFormedApiKey', () => {
  it('accepts tns_ followed by 43 base64url characters', () => {
    expect(isWellFormedApiKey(`tns_${'aZ09-_'.repeat(7)}x`)).toBe(true);
  });

  it.each([
    ['42 characters', `tns_${'a'.repeat(42)}`],
    ['44 characters', `tns_${'a'.repeat(44)}`],
    ['another prefix', `tnk_${'a'.repeat(43)}`],
    ['a character outside base64url', `tns_${'a'.repeat(42)}+`],
    ['surrounding white space', ` tns_${'a'.repeat(43)}`],
    ['empty text', ''],
  ])('refuses %s', (_label, text) => {
    expect(isWellFormedApiKey(text)).toBe(false);
  });
});
