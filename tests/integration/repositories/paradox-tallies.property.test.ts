// The paradox checks read only the first displaced and manipulated events and count the rest up to
// a bound (statements/paradox-tallies.ts). Over random histories on PostgreSQL, their answers must
// be what a full recomputation over every event of the timeline gives: the same verdicts, reasons
// and counts below the bound, and a count that stops at the bound and says so above it.
import fc from 'fast-check';
import { CHECK_BOUNDS, type ParadoxReason } from '../../../src/core/domain/paradox';
import type { TallyBounds } from '../../../src/core/domain/tally';
import { TimeRange } from '../../../src/core/domain/time-range';
import { isDisplacedDependency, type EventKind, type TimelineEvent } from '../../../src/core/domain/timeline-event';
import { CheckParadox } from '../../../src/core/use-cases/paradoxes/check-paradox';
import { MonitorParadox } from '../../../src/core/use-cases/paradoxes/monitor-paradox';
import { anEvent } from '../../support/builders/event-builder';
import { aTimeline } from '../../support/builders/timeline-builder';
import { postgresRepositoriesOnTestDatabase } from '../../support/contracts/postgres-subject';
import { givenAccounts, useRepositories } from '../../support/contracts/subject';

jest.setTimeout(120_000);

const BASE = Date.parse('1815-06-18T00:00:00Z');
const minute = (n: number) => new Date(BASE + n * 60_000);
const KINDS: readonly EventKind[] = ['arrival', 'anchor_set', 'item_retrieved', 'manipulation'];

/** One event of a history: where it first happened, and where manipulations left it (if any). */
interface HistoryStep {
  readonly kind: EventKind;
  /** Minutes from BASE. */
  readonly first: number;
  readonly movedTo: number | null;
  readonly revisions: number;
}
const anEventOfHistory: fc.Arbitrary<HistoryStep> = fc.record({
  kind: fc.constantFrom(...KINDS),
  first: fc.integer({ min: 0, max: 120 }),
  movedTo: fc.option(fc.integer({ min: 0, max: 120 }), { nil: null }),
  revisions: fc.integer({ min: 1, max: 3 }),
});
const aHistory = fc.array(anEventOfHistory, { maxLength: 14 });
const aRange = fc
  .tuple(fc.integer({ min: -10, max: 130 }), fc.integer({ min: 0, max: 60 }))
  .map(([start, length]) => TimeRange.parse(`${iso(minute(start))}/${iso(minute(start + length))}`));
/** Small bounds, so that histories reach them; a tally lists no more than it counts. */
const someBounds: fc.Arbitrary<TallyBounds> = fc
  .integer({ min: 1, max: 4 })
  .chain((listed) => fc.record({ listed: fc.constant(listed), counted: fc.integer({ min: listed, max: 6 }) }));

function iso(date: Date): string {
  return date.toISOString().replace('.000Z', 'Z');
}

/** Event ids are the account's: each history's are its own (`evt_<run>_<n>`). */
function eventsOf(history: readonly HistoryStep[], timelineId: string, run: number): TimelineEvent[] {
  return history.map((step, n) =>
    anEvent({
      id: `evt_${run}_${String(n).padStart(2, '0')}`,
      timelineId,
      kind: step.kind,
      subjectId: step.kind === 'manipulation' ? null : `sub_${n}`,
      originalTime: minute(step.first),
      time: minute(step.movedTo ?? step.first),
      revision: step.movedTo === null ? 0 : step.revisions,
    }),
  );
}

/** The full recomputation: every event of the timeline, filtered and sorted in memory. */
function everything(events: readonly TimelineEvent[], range?: TimeRange) {
  const inScope = events.filter((e) => !range || range.contains(e.time) || range.contains(e.originalTime));
  const by = (time: (e: TimelineEvent) => Date) => (a: TimelineEvent, b: TimelineEvent) =>
    time(a).getTime() - time(b).getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return {
    displaced: inScope.filter(isDisplacedDependency).sort(by((e) => e.originalTime)),
    manipulated: inScope.filter((e) => e.revision > 0).sort(by((e) => e.time)),
  };
}

/** What a bounded read must answer for `all`: exact below the bound; capped, and listing from it, above. */
function expectBounded<T>(
  tally: { first: readonly T[]; count: number; capped: boolean },
  all: T[],
  bounds: TallyBounds,
) {
  const capped = all.length > bounds.counted;
  expect({ count: tally.count, capped: tally.capped }).toEqual({
    count: capped ? bounds.counted : all.length,
    capped,
  });
  if (!capped) expect(tally.first).toEqual(all.slice(0, bounds.listed));
  else {
    expect(tally.first).toHaveLength(Math.min(bounds.listed, all.length));
    for (const member of tally.first) expect(all).toContainEqual(member);
  }
}

describe('paradox tallies against a full recomputation, over random histories', () => {
  const subject = useRepositories(postgresRepositoriesOnTestDatabase());
  let run = 0;

  beforeEach(async () => {
    await givenAccounts(subject.current.repos, 'acc_1');
  });

  /** A new timeline of its own for each generated history: the database is emptied per test only. */
  async function givenHistory(history: readonly HistoryStep[]) {
    run += 1;
    const timelineId = `tml_run${run}`;
    const { repos } = subject.current;
    await repos.timelines.add(aTimeline().withId(timelineId).build());
    const events = eventsOf(history, timelineId, run);
    for (const event of events) await repos.events.add(event);
    return { timelineId, events };
  }

  it('counts and lists the displaced and the manipulated events as the full recomputation does', async () => {
    await fc.assert(
      fc.asyncProperty(aHistory, fc.option(aRange, { nil: undefined }), someBounds, async (history, range, bounds) => {
        const { timelineId, events } = await givenHistory(history);
        const { repos } = subject.current;
        const full = everything(events, range);

        const displaced = await repos.events.tallyDisplaced('acc_1', timelineId, range, bounds);
        expectBounded(displaced, full.displaced, bounds);
        // The whole timeline's come from one ordered range of the index: exact even when capped.
        if (!range) expect(displaced.first).toEqual(full.displaced.slice(0, bounds.listed));
        if (range) {
          const manipulated = await repos.events.tallyManipulated('acc_1', timelineId, range, bounds);
          expectBounded(
            manipulated,
            full.manipulated.map((e) => e.id),
            bounds,
          );
        }
      }),
      { numRuns: 60 },
    );
  });

  it('gives every check the verdict, the reasons and the counts of the full recomputation', async () => {
    const { tx } = subject.current;
    const check = new CheckParadox(tx);
    const monitor = new MonitorParadox(tx, check);
    await fc.assert(
      fc.asyncProperty(aHistory, aRange, async (history, range) => {
        const { timelineId, events } = await givenHistory(history);
        const whole = everything(events).displaced;
        const ranged = everything(events, range);

        const report = await check.execute({ accountId: 'acc_1', timelineId });
        expect(report).toMatchObject({
          stable: whole.length === 0,
          reasonCount: whole.length,
          reasonCountCapped: false,
        });
        expect(report.reasons).toEqual(whole.slice(0, CHECK_BOUNDS.listed).map(displacementOf));

        const monitored = await monitor.execute({ accountId: 'acc_1', timelineId, range });
        expect(monitored).toMatchObject({
          stable: ranged.displaced.length === 0,
          reasonCount: ranged.displaced.length,
          manipulated: {
            first: ranged.manipulated.slice(0, CHECK_BOUNDS.listed).map((e) => e.id),
            count: ranged.manipulated.length,
            capped: false,
          },
        });
        expect(monitored.reasons.map((reason) => reason.code === 'event_displaced' && reason.eventId)).toEqual(
          ranged.displaced.slice(0, CHECK_BOUNDS.listed).map((e) => e.id),
        );
      }),
      { numRuns: 40 },
    );
  });
});

/** The reason a displaced event gives, as docs/paradoxes.md shows it. */
function displacementOf(event: TimelineEvent): Partial<ParadoxReason> {
  return expect.objectContaining({
    code: 'event_displaced',
    eventId: event.id,
    originalTime: event.originalTime,
    time: event.time,
    dependentId: event.subjectId,
  }) as Partial<ParadoxReason>;
}
