import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsInt, IsString, Matches, Min, ValidateNested } from 'class-validator';
import { CHECK_BOUNDS } from '../../../../core/domain/paradox';
import { ApiField } from '../../openapi/api-field';
import { EXAMPLE_IDS, idOf, TIMELINE_ID } from './ids';
import { NextCursor } from './next-cursor';
import { EventResponse, ManipulationResponse, VerdictResponse } from './resources.response';

/** Family C answers, in the vocabulary of A and B (docs/decisions.md, "Family C responses"). */

/** Also Family A's monitor-events answer, which adds `status`. */
export class EventScanResponse {
  @IsString() @ApiField({ example: 'Sea of Tranquility' }) location!: string;
  @IsString() @ApiField({ example: '1969-07-20T00:00:00Z/1969-07-21T00:00:00Z' }) time_range!: string;
  @Matches(TIMELINE_ID) @ApiField({ example: 'primary' }) timeline_id!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => EventResponse) events!: EventResponse[];
  @NextCursor() next_cursor!: string | null;
}

export class ManipulateEventResponse {
  @IsString() @ApiField({ example: `Event ${EXAMPLE_IDS.event} manipulated.` }) status!: string;
  @ValidateNested() @Type(() => EventResponse) event!: EventResponse;
  @ValidateNested() @Type(() => ManipulationResponse) manipulation!: ManipulationResponse;
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ManipulationResponse)
  @ApiField({ example: [], description: "The event's latest manipulations, at most 100, first to last." })
  history!: ManipulationResponse[];
  @IsInt()
  @Min(1)
  @ApiField({ example: 1, description: 'How many manipulations the event has had, this one included.' })
  history_count!: number;
}

/** The verdict weighs the manipulated events of the whole range; `events_monitored` is one page of all its events. */
export class MonitorParadoxResponse extends VerdictResponse {
  @IsString() @ApiField({ example: '1969-07-20T00:00:00Z/1969-07-21T00:00:00Z' }) time_range!: string;
  @IsInt()
  @Min(0)
  @ApiField({
    example: 0,
    description:
      'How many events of the range (current or original time in it) have been manipulated, on every page: ' +
      `the events the verdict weighs. Counted up to ${CHECK_BOUNDS.counted} (\`manipulated_count_capped\`).`,
  })
  manipulated_count!: number;
  @IsBoolean()
  @ApiField({
    example: false,
    description:
      'True when the range holds more manipulated events than were counted: `manipulated_count` is a minimum.',
  })
  manipulated_count_capped!: boolean;
  @IsArray()
  @Matches(idOf('evt'), { each: true })
  @ApiField({ example: [], description: `Their ids, oldest first; at most ${CHECK_BOUNDS.listed}.` })
  manipulated_event_ids!: string[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => EventResponse) events_monitored!: EventResponse[];
  @IsString()
  @ApiField({
    example: null,
    nullable: true,
    description:
      "`events_monitored` is one page of the range's events at every place, oldest first, each with `manipulated` " +
      '(`limit`: 100 by default, at most 500). Pass this as `cursor` for the next page; `null` on the last.',
  })
  next_cursor!: string | null;
}

export class CheckTimelineResponse extends VerdictResponse {
  @ValidateNested() @Type(() => EventResponse) significant_event!: EventResponse;
}
