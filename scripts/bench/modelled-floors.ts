// The reads' floors with the domain model put back: the service's statement on the pool, its rows
// turned into the domain's objects by the service's own repository code, then presented and sent as
// the service presents and sends them; still no authentication, validation, rate limit, request log
// or Express steps. Between a read's floor and this, the share of the floor's requests a second that
// the domain model alone costs; the goal leaves the service's layers all together a fifth
// (docs/performance.md, "The domain model's share").
import type { Express, Request } from 'express';
import { TimeRange } from '../../src/core/domain/time-range';
import { cutPage, DEFAULT_EVENT_PAGE_SIZE } from '../../src/core/use-cases/events/list-events';
import type { SqlRunner } from '../../src/infrastructure/database/driver/sql-runner';
import { eventsOfListing } from '../../src/infrastructure/persistence/postgres/repositories/event-repository';
import { toDomain as timelineOf } from '../../src/infrastructure/persistence/postgres/repositories/timeline-repository';
import { EVERY_VERSION, LISTINGS } from '../../src/infrastructure/persistence/postgres/statements/event-listing';
import { FIND_TIMELINE } from '../../src/infrastructure/persistence/postgres/statements/timelines';
import { textDigest } from '../../src/infrastructure/persistence/postgres/text-digest';
import { nextEventCursor } from '../../src/interfaces/http/cursor';
import { presentEvent, presentTimeline } from '../../src/interfaces/http/presenters/resources';
import { sendAnswer } from '../../src/interfaces/http/send-answer';

/** The page the benchmark's listing asks for (the service's default). */
const PAGE_SIZE = DEFAULT_EVENT_PAGE_SIZE;

/** The floors of the two reads with their domain model, for the account `accountOf` names. */
export function mountModelledFloors(app: Express, sql: SqlRunner, accountOf: (req: Request) => string): void {
  app.get('/floor/modelled/listing', async (req, res) => {
    const accountId = accountOf(req);
    const location = String(req.query.location);
    const timeRange = String(req.query.time_range);
    const range = TimeRange.parse(timeRange);
    // As the repository's listAt and the use case's page: one row more than the page.
    const rows = await LISTINGS.onTraveller.run(sql, {
      accountId,
      placeKey: textDigest(location),
      start: range.start,
      end: range.end,
      limit: PAGE_SIZE + 1,
      upTo: EVERY_VERSION,
    });
    const found = eventsOfListing(rows, accountId);
    if (!found) return void sendAnswer(res, { status: 404, body: { title: 'no traveller to read from' } });
    const page = cutPage(found.events, PAGE_SIZE);
    const body = {
      location,
      time_range: timeRange,
      timeline_id: found.timelineId,
      events: page.events.map(presentEvent),
      next_cursor: nextEventCursor(page.next),
    };
    sendAnswer(res, { status: 200, body });
  });

  app.get('/floor/modelled/timeline/:id', async (req, res) => {
    const accountId = accountOf(req);
    const [row] = await FIND_TIMELINE.run(sql, { accountId, timelineId: req.params.id });
    if (!row) return void sendAnswer(res, { status: 404, body: { title: 'no such timeline' } });
    sendAnswer(res, { status: 200, body: presentTimeline(timelineOf(row).settledAt(new Date())) });
  });
}
