// The paradox checks read only the first displaced, manipulated and named events and count the rest
// up to a bound (statements/paradox-tallies.ts). Over random histories and proposals on PostgreSQL,
// their answers must be what a full recomputation over every event of the timeline gives: the same
// verdicts, reasons and counts below the bound, and a count that stops at the bound and says so
// above it.
import fc from 'fast-check';
import { CHECK_BOUNDS, NAMED_BOUNDS, type ParadoxReason, type ProposedChange } from '../../../src/core/domain/paradox';
import type { TallyBounds } from '../../../src/core/domain/tally';
import { textKey } from '../../../src/core/domain/text-key';
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
  /** A few names, spelt in ways textKey makes one, so that a name is often recorded several times. */
  readonly name: string;
  /** Minutes from BASE. */
  readonly first: number;
  readonly movedTo: number | null;
  readonly revisions: number;
}
const anEventOfHistory: fc.Arbitrary<HistoryStep> = fc.record({
  kind: fc.constantFrom(...KINDS),
  name: fc.constantFrom('Rain', ' RAIN ', 'Charge', 'Retreat'),
  first: fc.integer({ min: 0, max: 120 }),
  movedTo: fc.option(fc.integer({ min: 0, max: 120 }), { nil: null }),
  revisions: fc.integer({ min: 1, max: 3 }),
});
const aHistory = fc.array(anEventOfHistory, { maxLength: 14 });
/** Event changes proposing those names (and one never recorded), often at a time of the history. */
const someProposals = (history: readonly HistoryStep[]): fc.Arbitrary<ProposedChange[]> =>
  fc.array(
    fc.record({
      kind: fc.constant('event' as const),
      event: fc.constantFrom('rain', 'Charge', 'Retreat', 'Dawn'),
      time: fc
        .oneof(
          fc.integer({ min: 0, max: 120 }),
          fc.constantFrom(0, ...history.map((step) => step.movedTo ?? step.first)),
        )
        .map(minute),
    }),
    { maxLength: 5 },
  );
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
      description: step.name,
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
    named: (name: string) => events.filter((e) => textKey(e.description) === textKey(name)).sort(by((e) => e.time)),
  };
}

/**
 * The names in conflict, recomputed from every event: proposed at two times, or at a time when no
 * recorded event of that name happens while one is recorded.
 */
function conflictingNames(changes: readonly ProposedChange[], events: readonly TimelineEvent[]): string[] {
  const keys = [...new Set(changes.flatMap((change) => (change.kind === 'event' ? [textKey(change.event)] : [])))];
  return keys.filter((key) => {
    const times = new Set(changes.flatMap((c) => (c.kind === 'event' && textKey(c.event) === key ? [+c.time] : [])));
    const recorded = new Set(events.filter((e) => textKey(e.description) === key).map((e) => +e.time));
    return times.size > 1 || (recorded.size > 0 && [...times].some((time) => !recorded.has(time)));
  });
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

  it('counts and lists the displaced, manipulated and named events as the full recomputation does', async () => {
    const aCase = aHistory.chain((history) =>
      fc.tuple(fc.constant(history), fc.option(aRange, { nil: undefined }), someBounds, someProposals(history)),
    );
    await fc.assert(
      fc.asyncProperty(aCase, async ([history, range, bounds, proposals]) => {
        const { timelineId, events } = await givenHistory(history);
        const { repos } = subject.current;
        const full = everything(events, range);

        const names = [...new Set(proposals.map((change) => change.kind === 'event' && change.event))].filter(
          (name) => name !== false,
        );
        const asked = names.map((name) => ({
          name,
          times: proposals.flatMap((c) => (c.kind === 'event' && c.event === name ? [c.time] : [])),
        }));
        const named = await repos.events.tallyNamed('acc_1', timelineId, asked, bounds);
        expect(named.map((answer) => answer.name)).toEqual(names);
        named.forEach((answer, n) => {
          const all = full.named(answer.name);
          expectBounded(answer.events, all, bounds);
          // One ordered range of the name's index: exact even when capped.
          expect(answer.events.first).toEqual(all.slice(0, bounds.listed));
          const recorded = new Set(all.map((e) => +e.time));
          expect(answer.recordedAt).toEqual(asked[n].times.filter((time) => recorded.has(+time)));
        });

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
    const aCase = aHistory.chain((history) => fc.tuple(fc.constant(history), aRange, someProposals(history)));
    await fc.assert(
      fc.asyncProperty(aCase, async ([history, range, proposals]) => {
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

        const conflicts = conflictingNames(proposals, events);
        const proposed = await check.execute({ accountId: 'acc_1', timelineId, proposedChanges: proposals });
        expect(proposed).toMatchObject({
          stable: conflicts.length === 0 && whole.length === 0,
          reasonCount: conflicts.length + whole.length,
        });
        const twoTimes = proposed.reasons.filter((reason) => reason.code === 'event_at_two_times');
        expect(twoTimes.map((reason) => textKey(reason.event))).toEqual(conflicts.slice(0, CHECK_BOUNDS.listed));
        for (const reason of twoTimes) {
          const recorded = everything(events).named(reason.event);
          expect(reason).toMatchObject({
            eventIds: recorded.slice(0, NAMED_BOUNDS.listed).map((e) => e.id),
            eventCount: recorded.length,
            eventCountCapped: false,
          });
        }

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
