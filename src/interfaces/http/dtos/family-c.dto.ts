import { IsDateTime, IsTimeRange } from '../validation/decorators';
import { Identifier, Required, Text } from '../validation/fields';
import { MAX_ID_LENGTH, MAX_TEXT_LENGTH } from './limits';
import { EventPageDto, TimelineIdDto } from './shared.dto';

export class ManipulateEventDto {
  @Required()
  @Identifier(MAX_ID_LENGTH)
  event_id!: string;

  /** Free text describing the manipulation. */
  @Required()
  @Text(MAX_TEXT_LENGTH)
  action!: string;

  /** When the event happens after the manipulation. */
  @Required()
  @IsDateTime()
  time!: string;
}

export class MonitorParadoxDto extends EventPageDto {
  @Required()
  @Identifier(MAX_ID_LENGTH)
  timeline_id!: string;

  @Required()
  @IsTimeRange()
  time_range!: string;
}

export class CheckTimelineDto extends TimelineIdDto {
  /** An event id, or the name of an event on the timeline. */
  @Required()
  @Text(MAX_TEXT_LENGTH)
  significant_event!: string;
}
