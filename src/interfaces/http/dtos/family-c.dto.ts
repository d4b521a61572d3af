import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsDateTime, IsTimeRange } from '../validation/decorators';
import { MAX_ID_LENGTH, MAX_TEXT_LENGTH } from './limits';
import { EventPageDto, TimelineIdDto } from './shared.dto';

export class ManipulateEventDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_ID_LENGTH)
  event_id!: string;

  /** Free text describing the manipulation. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT_LENGTH)
  action!: string;

  /** When the event happens after the manipulation. */
  @IsDateTime()
  time!: string;
}

export class MonitorParadoxDto extends EventPageDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_ID_LENGTH)
  timeline_id!: string;

  @IsTimeRange()
  time_range!: string;
}

export class CheckTimelineDto extends TimelineIdDto {
  /** An event id, or the name of an event on the timeline. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT_LENGTH)
  significant_event!: string;
}
