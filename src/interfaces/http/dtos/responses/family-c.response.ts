import { Type } from 'class-transformer';
import { IsArray, IsInt, IsString, Matches, Min, ValidateNested } from 'class-validator';
import { ApiField } from '../../openapi/api-field';
import { EXAMPLE_IDS, TIMELINE_ID } from './ids';
import { EventResponse, ManipulationResponse, VerdictResponse } from './resources.response';

/** Family C answers, in the vocabulary of A and B (docs/decisions.md, "Family C responses"). */

/** Also Family A's monitor-events answer, which adds `status`. */
export class EventScanResponse {
  @IsString() @ApiField({ example: 'Sea of Tranquility' }) location!: string;
  @IsString() @ApiField({ example: '1969-07-20T00:00:00Z/1969-07-21T00:00:00Z' }) time_range!: string;
  @Matches(TIMELINE_ID) @ApiField({ example: 'primary' }) timeline_id!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => EventResponse) events!: EventResponse[];
  @IsString() @ApiField({ example: null, nullable: true, description: 'Pass as `cursor` for the next page; `null` on the last.' })
  next_cursor!: string | null;
}

export class ManipulateEventResponse {
  @IsString() @ApiField({ example: `Event ${EXAMPLE_IDS.event} manipulated.` }) status!: string;
  @ValidateNested() @Type(() => EventResponse) event!: EventResponse;
  @ValidateNested() @Type(() => ManipulationResponse) manipulation!: ManipulationResponse;
  @IsArray() @ValidateNested({ each: true }) @Type(() => ManipulationResponse) history!: ManipulationResponse[];
}

export class MonitorParadoxResponse extends VerdictResponse {
  @IsString() @ApiField({ example: '1969-07-20T00:00:00Z/1969-07-21T00:00:00Z' }) time_range!: string;
  @IsInt() @Min(0) @ApiField({ example: 1, description: 'How many events are in the range; `events_monitored` lists at most 100.' })
  events_monitored_count!: number;
  @IsArray() @ValidateNested({ each: true }) @Type(() => EventResponse) events_monitored!: EventResponse[];
}

export class CheckTimelineResponse extends VerdictResponse {
  @ValidateNested() @Type(() => EventResponse) significant_event!: EventResponse;
}

