import { KnownTravellers } from '../../../src/infrastructure/persistence/postgres/unit-of-work/known-travellers';
import { aPausedTraveller } from '../../support/builders/traveller-builder';

const known = (accountId: string, version = '1') => ({ traveller: aPausedTraveller(accountId), version });

describe('KnownTravellers', () => {
  it('keeps at most its bound, forgetting the one written longest ago', () => {
    const travellers = new KnownTravellers(2);
    travellers.remember('acc_1', known('acc_1'));
    travellers.remember('acc_2', known('acc_2'));
    travellers.remember('acc_1', known('acc_1', '2'));
    travellers.remember('acc_3', known('acc_3'));

    expect(travellers.get('acc_1')?.version).toBe('2');
    expect(travellers.get('acc_2')).toBeUndefined();
    expect(travellers.get('acc_3')).toEqual(known('acc_3'));
  });

  it('forgets on demand, and keeps nothing with a bound of 0', () => {
    const travellers = new KnownTravellers(1);
    travellers.remember('acc_1', known('acc_1'));
    travellers.forget('acc_1');
    const none = new KnownTravellers(0);
    none.remember('acc_1', known('acc_1'));

    expect(travellers.get('acc_1')).toBeUndefined();
    expect(none.get('acc_1')).toBeUndefined();
  });
});
