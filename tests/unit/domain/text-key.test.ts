import { textKey } from '../../../src/core/domain/text-key';

describe('textKey', () => {
  it('trims, collapses white space and lower-cases', () => {
    expect(textKey('  The\tEagle \n  LANDS  ')).toBe('the eagle lands');
  });

  it('keeps apart names that differ in more than case and white space', () => {
    expect(textKey('Eagle lands')).not.toBe(textKey('Eagle landed'));
    expect(textKey('Eagle lands')).not.toBe(textKey('Eaglelands'));
  });
});
