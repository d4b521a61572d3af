import { AuthenticateApiKey } from '../../../src/core/use-cases/accounts/authenticate-api-key';
import { CreateAccount } from '../../../src/core/use-cases/accounts/create-account';
import { CreateAnchor } from '../../../src/core/use-cases/anchors/create-anchor';
import { PauseTime } from '../../../src/core/use-cases/clock/pause-time';
import { ResumeTime } from '../../../src/core/use-cases/clock/resume-time';
import { ShiftTime } from '../../../src/core/use-cases/clock/shift-time';
import { ListEvents } from '../../../src/core/use-cases/events/list-events';
import { ManipulateEvent } from '../../../src/core/use-cases/events/manipulate-event';
import { RegisterItem } from '../../../src/core/use-cases/items/register-item';
import { CheckParadox } from '../../../src/core/use-cases/paradoxes/check-paradox';
import { CreateTimeline } from '../../../src/core/use-cases/timelines/create-timeline';
import { GetTimeline } from '../../../src/core/use-cases/timelines/get-timeline';
import { ListTimelines } from '../../../src/core/use-cases/timelines/list-timelines';
import { Travel } from '../../../src/core/use-cases/travels/travel';
import { TravelToMoment } from '../../../src/core/use-cases/travels/travel-to-moment';
import {
  FakeCredentialHasher,
  FrozenWallClock,
  InMemoryDatabase,
  InMemoryTransactionBoundary,
  SequentialIdGenerator,
} from '../in-memory';

export const PRESENT = '2030-01-01T12:00:00Z';

/** The core wired over in-memory fakes, with every use case, as the composition root would. */
export function createTestCore(start: string = PRESENT) {
  const database = new InMemoryDatabase();
  const transactions = new InMemoryTransactionBoundary(database);
  const clock = new FrozenWallClock(start);
  const ids = new SequentialIdGenerator();
  const hasher = new FakeCredentialHasher();
  return {
    database,
    transactions,
    clock,
    ids,
    hasher,
    createAccount: new CreateAccount(transactions, hasher, ids, clock),
    authenticateApiKey: new AuthenticateApiKey(transactions, hasher),
    createAnchor: new CreateAnchor(transactions, ids, clock),
    createTimeline: new CreateTimeline(transactions, ids, clock),
    getTimeline: new GetTimeline(transactions, clock),
    listTimelines: new ListTimelines(transactions, clock),
    pauseTime: new PauseTime(transactions, clock),
    resumeTime: new ResumeTime(transactions, clock),
    shiftTime: new ShiftTime(transactions, clock),
    travel: new Travel(transactions, ids, clock),
    travelToMoment: new TravelToMoment(transactions, ids, clock),
    registerItem: new RegisterItem(transactions, ids, clock),
    listEvents: new ListEvents(transactions),
    manipulateEvent: new ManipulateEvent(transactions, ids, clock),
    checkParadox: new CheckParadox(transactions),
  };
}

export type TestCore = ReturnType<typeof createTestCore>;
