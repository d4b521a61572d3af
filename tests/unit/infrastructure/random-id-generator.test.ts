import { RandomIdGenerator } from '../../../src/infrastructure/system/random-id-generator';

describe('RandomIdGenerator', () => {
  it('gives 128-bit hex ids with their prefix, never the same twice across many batches', () => {
    const ids = new RandomIdGenerator();
    const made = Array.from({ length: 2_000 }, () => ids.newId('anc'));

    for (const id of made) expect(id).toMatch(/^anc_[0-9a-f]{32}$/);
    expect(new Set(made).size).toBe(made.length);
  });

  it('does not repeat the bytes of one batch in the next', () => {
    const ids = new RandomIdGenerator();
    const batch = Array.from({ length: 256 }, () => ids.newId('evt').slice(4));
    const next = Array.from({ length: 256 }, () => ids.newId('evt').slice(4));

    expect(next.filter((id) => batch.includes(id))).toEqual([]);
  });

  it('gives each generator its own bytes', () => {
    const one = new RandomIdGenerator();
    const other = new RandomIdGenerator();

    expect(one.newId('tml')).not.toBe(other.newId('tml'));
  });
});
