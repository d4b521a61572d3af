import { IsInt, Max, Min } from 'class-validator';
import { MAX_EVENT_PAGE_SIZE } from '../../../core/use-cases/events/list-events';
import { IsDateTime, IsTimeRange } from '../validation/decorators';
import { Checks, Cursor, Identifier, Required, Text } from '../validation/fields';
import { FromDigits, Optional } from '../validation/optional';
import { MAX_ID_LENGTH, MAX_NAME_LENGTH } from './limits';

/** Inputs that Families A and C share: the same names, the same rules. */

export class TravelToMomentDto {
  @Required()
  @IsDateTime()
  destination_time!: string;

  @Required()
  @Text(MAX_NAME_LENGTH)
  location!: string;
}

/** A page of events (GET /v1/monitor-events, POST /api/v1/scan-events, GET /api/v1/monitor-paradox). */
export class EventPageDto {
  @Optional()
  @FromDigits()
  @Checks(IsInt({ message: 'limit must be a whole number' }), Min(1), Max(MAX_EVENT_PAGE_SIZE))
  limit?: number;

  @Optional()
  @Cursor()
  cursor?: string;
}

/** GET /v1/monitor-events and POST /api/v1/scan-events. */
export class EventScanDto extends EventPageDto {
  /** A physical location, or the name of an event to watch. */
  @Required()
  @Text(MAX_NAME_LENGTH)
  location!: string;

  @Required()
  @IsTimeRange()
  time_range!: string;

  /** Omitted: the timeline the traveller is on. */
  @Optional()
  @Identifier(MAX_ID_LENGTH)
  timeline_id?: string;
}

export class TimelineIdDto {
  @Required()
  @Identifier(MAX_ID_LENGTH)
  timeline_id!: string;
}
