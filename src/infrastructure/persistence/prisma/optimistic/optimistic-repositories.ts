import type { Traveller } from '../../../../core/domain/traveller';
import type { Repositories } from '../../../../core/ports/repositories';
import { eventRow } from '../repositories/prisma-event-repository';
import { timelineRow } from '../repositories/prisma-timeline-repository';
import { travellerRow, type TravellerRow } from '../repositories/prisma-traveller-repository';
import { ANCHORS, EVENT_MANIPULATIONS, EVENTS, ITEMS, TIMELINES, TRAVELS } from '../tables';
import type { WriteSet } from './write-statement';

/** Thrown inside optimistic work that needs what only a locked transaction gives; it reruns there. */
export class NeedsLock extends Error {
  constructor(reason: string) {
    super(`optimistic work needs the account lock: ${reason}`);
    this.name = 'NeedsLock';
  }
}

/** What an optimistic run of one account's work read and wrote. */
export interface OptimisticState {
  readonly accountId: string;
  /** The traveller as read at the start, then as the work saved it. */
  traveller: Traveller;
  travellerSaved: TravellerRow | null;
  readonly writes: WriteSet;
  /** Reads made besides the traveller's: a unit that made none and wrote nothing needs no check. */
  reads: number;
}

/**
 * The repositories of an optimistic run: reads go to the database at once, writes are collected
 * for the run's one statement. A read after a write would not see it, and the writes that answer a
 * value (or concern no account state the guard protects) cannot wait: both end the run (NeedsLock).
 */
export function optimisticRepositories(plain: Repositories, state: OptimisticState): Repositories {
  const read = <T>(query: () => Promise<T>): Promise<T> => {
    if (!state.writes.isEmpty || state.travellerSaved) return Promise.reject(new NeedsLock('a read after a write'));
    state.reads += 1;
    return query();
  };
  const collect = (write: () => void): Promise<void> => {
    write();
    return Promise.resolve();
  };
  return {
    accounts: lockOnly('accounts'),
    apiKeys: lockOnly('apiKeys'),
    sessions: lockOnly('sessions'),
    loginThrottles: lockOnly('loginThrottles'),
    travellers: {
      add: () => Promise.reject(new NeedsLock('adding a traveller')),
      getForAccount: (accountId) =>
        accountId === state.accountId
          ? Promise.resolve(state.traveller)
          : Promise.reject(new NeedsLock("another account's traveller")),
      save: (traveller) => {
        if (traveller.accountId !== state.accountId)
          return Promise.reject(new NeedsLock("another account's traveller"));
        state.traveller = traveller;
        state.travellerSaved = travellerRow(traveller);
        return Promise.resolve();
      },
    },
    timelines: {
      add: (timeline) => collect(() => state.writes.insert(TIMELINES, timelineRow(timeline))),
      save: (timeline) => collect(() => state.writes.update(TIMELINES, timelineRow(timeline))),
      findForAccount: (...args) => read(() => plain.timelines.findForAccount(...args)),
      listForAccount: (...args) => read(() => plain.timelines.listForAccount(...args)),
    },
    anchors: {
      add: (anchor) => collect(() => state.writes.insert(ANCHORS, anchor)),
      findForAccount: (...args) => read(() => plain.anchors.findForAccount(...args)),
    },
    items: {
      add: (item) => collect(() => state.writes.insert(ITEMS, item)),
      save: (item) => collect(() => state.writes.update(ITEMS, item)),
      findSame: (...args) => read(() => plain.items.findSame(...args)),
      findManyForAccount: (...args) => read(() => plain.items.findManyForAccount(...args)),
    },
    travels: {
      add: (travel) =>
        collect(() => state.writes.insert(TRAVELS, { ...travel, itemsTransported: [...travel.itemsTransported] })),
    },
    events: {
      add: (event) => collect(() => state.writes.insert(EVENTS, eventRow(event))),
      save: (event) => collect(() => state.writes.update(EVENTS, eventRow(event))),
      addManipulation: (manipulation) => collect(() => state.writes.insert(EVENT_MANIPULATIONS, manipulation)),
      findForAccount: (...args) => read(() => plain.events.findForAccount(...args)),
      listAt: (...args) => read(() => plain.events.listAt(...args)),
      listInRange: (...args) => read(() => plain.events.listInRange(...args)),
      findNamed: (...args) => read(() => plain.events.findNamed(...args)),
      findManipulated: (...args) => read(() => plain.events.findManipulated(...args)),
      manipulationsOf: (...args) => read(() => plain.events.manipulationsOf(...args)),
    },
  };
}

/** A repository whose every use hands the work to a locked transaction (accounts, keys, sessions). */
function lockOnly<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get: (_target, method) => () => Promise.reject(new NeedsLock(`${name}.${String(method)}`)),
  });
}
