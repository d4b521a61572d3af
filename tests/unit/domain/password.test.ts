import { BlankPassword, CommonPassword, ShortPassword } from '../../../src/core/domain/errors';
import { checkNewPassword } from '../../../src/core/domain/password';

const listed = new Set(['password', '12345678', 'trustno1']);
const common = { includes: (password: string) => listed.has(password) };

describe('checkNewPassword', () => {
  it.each(['        ', '\t\t\t\t\t\t\t\t', '\u00a0\u2003\u3000 \u00a0\u2003\u3000 '])(
    'refuses white space alone (%j) as password_blank',
    (password) => {
      expect(() => checkNewPassword(password, common)).toThrow(BlankPassword);
    },
  );

  it.each(['       x', ' abcdefg ', '\tabc def\n'])(
    'refuses %j, under 8 characters without the white space around it, as password_too_short',
    (password) => {
      expect(() => checkNewPassword(password, common)).toThrow(ShortPassword);
    },
  );

  it.each(['password', '12345678', 'PassWord', 'TRUSTNO1', '  password  '])(
    'refuses %j, a listed password in any case or padding, as password_too_common',
    (password) => {
      expect(() => checkNewPassword(password, common)).toThrow(CommonPassword);
    },
  );

  it.each(['correct horse battery', 'password1234', ' 12345678 9'])(
    'accepts %j, which is not on the list',
    (password) => {
      expect(() => checkNewPassword(password, common)).not.toThrow();
    },
  );

  it('gives each refusal its own stable code', () => {
    expect([new BlankPassword().code, new ShortPassword(8).code, new CommonPassword().code]).toEqual([
      'password_blank',
      'password_too_short',
      'password_too_common',
    ]);
  });
});
