import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Min, ValidateNested } from 'class-validator';
import { CHECK_BOUNDS, NAMED_BOUNDS } from '../../../../core/domain/paradox';
import { ApiField } from '../../openapi/api-field';
import { IsDateTime } from '../../validation/decorators';
import { EXAMPLE_IDS, idOf, TIMELINE_ID } from './ids';

/**
 * Documentation-only classes: the JSON shapes presenters/resources.ts produces. Nothing validates
 * responses with them at run time; the OpenAPI document is generated from them and the conformance
 * test checks real responses against it.
 */

export class AccountResponse {
  @Matches(idOf('acc')) @ApiField({ example: EXAMPLE_IDS.account }) id!: string;
  @IsString() @ApiField({ example: 'ada@example.com' }) email!: string;
  @Matches(/^tns_[A-Za-z0-9_-]{43}$/)
  @ApiField({
    example: 'tns_q3Jm0V2Jb4hY9v8kQ1x7TzL5nR6sW3eD2fG4hJ8kL0M',
    description: 'Shown only this once: keep it.',
  })
  api_key!: string;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:00:00Z' }) created_at!: string;
}

export class AnchorResponse {
  @Matches(idOf('anc')) @ApiField({ example: EXAMPLE_IDS.anchor }) id!: string;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:00:00Z' }) timestamp!: string;
  @IsString() @ApiField({ example: 'Home' }) description!: string;
  @Matches(TIMELINE_ID) @ApiField({ example: 'primary' }) timeline_id!: string;
  @IsString() @ApiField({ example: 'Greenwich' }) location!: string;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:00:00Z' }) created_at!: string;
}

export class TimelineResponse {
  @Matches(TIMELINE_ID) @ApiField({ example: EXAMPLE_IDS.timeline }) id!: string;
  @IsString() @ApiField({ example: 'Apollo 11' }) name!: string;
  @IsDateTime()
  @ApiField({ example: '1969-07-20T20:17:40Z', nullable: true, description: '`null` for primary.' })
  destination_time!: string | null;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:00:00Z' }) created_at!: string;
  @IsIn(['open', 'active', 'completed', 'expired']) @ApiField({ example: 'open' }) status!: string;
  @Matches(/^[1-9][0-9]* minutes$/)
  @ApiField({ example: '12 minutes', nullable: true, description: '`null` for primary.' })
  window!: string | null;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:12:00Z', nullable: true }) window_closes_at!: string | null;
}

export class ItemResponse {
  @Matches(idOf('itm')) @ApiField({ example: EXAMPLE_IDS.item }) id!: string;
  @Matches(TIMELINE_ID) @ApiField({ example: EXAMPLE_IDS.timeline }) timeline_id!: string;
  @IsString() @ApiField({ example: 'Moon rock' }) item_description!: string;
  @IsString() @ApiField({ example: 'Sea of Tranquility' }) location!: string;
  @IsDateTime() @ApiField({ example: '1969-07-20T20:30:00Z' }) found_at!: string;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:02:00Z' }) registered_at!: string;
  @Matches(idOf('trv'))
  @ApiField({ example: null, nullable: true, description: 'The travel that carried it home.' })
  carried_home_by!: string | null;
}

export class TravelResponse {
  @Matches(idOf('trv')) @ApiField({ example: EXAMPLE_IDS.travel }) id!: string;
  @IsString()
  @ApiField({ example: EXAMPLE_IDS.timeline, description: 'As the request named it.' })
  destination!: string;
  @Matches(TIMELINE_ID) @ApiField({ example: EXAMPLE_IDS.timeline }) timeline_id!: string;
  @IsDateTime() @ApiField({ example: '1969-07-20T20:17:40Z' }) current_time!: string;
  @IsString() @ApiField({ example: 'Sea of Tranquility' }) location!: string;
  @IsArray() @Matches(idOf('itm'), { each: true }) @ApiField({ example: [] }) items_transported!: string[];
}

/** A move to a moment and place (Families A and C). */
export class ArrivalResponse {
  @IsString() @ApiField({ example: 'Arrived at Sea of Tranquility at 1969-07-20T20:17:40Z.' }) status!: string;
  @IsDateTime() @ApiField({ example: '1969-07-20T20:17:40Z' }) current_time!: string;
  @IsString() @ApiField({ example: 'Sea of Tranquility' }) location!: string;
  @Matches(TIMELINE_ID) @ApiField({ example: 'primary' }) timeline_id!: string;
  @Matches(idOf('trv')) @ApiField({ example: EXAMPLE_IDS.travel }) travel_id!: string;
}

export class EventResponse {
  @Matches(idOf('evt')) @ApiField({ example: EXAMPLE_IDS.event }) event_id!: string;
  @IsDateTime() @ApiField({ example: '1969-07-20T20:17:40Z' }) time!: string;
  @IsString() @ApiField({ example: 'Traveller arrives at Sea of Tranquility' }) description!: string;
  @IsString() @ApiField({ example: 'Sea of Tranquility' }) location!: string;
  @Matches(TIMELINE_ID) @ApiField({ example: 'primary' }) timeline_id!: string;
  @IsIn(['arrival', 'anchor_set', 'item_retrieved', 'manipulation']) @ApiField({ example: 'arrival' }) kind!: string;
  @IsDateTime() @ApiField({ example: '1969-07-20T20:17:40Z' }) original_time!: string;
  @IsBoolean() @ApiField({ example: false }) manipulated!: boolean;
}

export class ManipulationResponse {
  @Matches(idOf('man')) @ApiField({ example: EXAMPLE_IDS.manipulation }) id!: string;
  @Matches(idOf('evt')) @ApiField({ example: EXAMPLE_IDS.event }) event_id!: string;
  @IsString() @ApiField({ example: 'Delay the landing' }) action!: string;
  @IsDateTime() @ApiField({ example: '1969-07-20T20:17:40Z' }) from_time!: string;
  @IsDateTime() @ApiField({ example: '1969-07-20T21:17:40Z' }) to_time!: string;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:00:00Z' }) applied_at!: string;
  @IsInt() @Min(1) @ApiField({ example: 1 }) revision!: number;
}

/**
 * `event_at_two_times` carries `times`, `event_ids` and `event_count(_capped)`; `event_displaced` the
 * other optional fields.
 */
export class ParadoxReasonResponse {
  @IsIn(['event_at_two_times', 'event_displaced']) @ApiField({ example: 'event_at_two_times' }) code!: string;
  @IsString() @ApiField({ example: "'Moon landing' would happen at two times." }) message!: string;
  @IsString() @ApiField({ example: 'Moon landing' }) event!: string;
  @IsOptional()
  @IsArray()
  @IsDateTime({ each: true })
  @ApiField({
    example: ['1969-07-20T20:17:40Z', '1969-07-21T20:17:40Z'],
    description: 'The proposed times, and the times of the recorded events in `event_ids`, oldest first.',
  })
  times?: string[];
  @IsOptional()
  @IsArray()
  @Matches(idOf('evt'), { each: true })
  @ApiField({
    example: [EXAMPLE_IDS.event],
    description: `The first ${NAMED_BOUNDS.listed} recorded events of that name on the timeline, by time then id.`,
  })
  event_ids?: string[];
  @IsOptional()
  @IsInt()
  @Min(0)
  @ApiField({
    example: 1,
    description:
      `How many recorded events have that name, counted up to ${NAMED_BOUNDS.counted} ` +
      '(`event_count_capped` is true when there are more).',
  })
  event_count?: number;
  @IsOptional() @IsBoolean() @ApiField({ example: false }) event_count_capped?: boolean;
  @IsOptional() @Matches(idOf('evt')) @ApiField({ example: EXAMPLE_IDS.event }) event_id?: string;
  @IsOptional() @IsDateTime() @ApiField({ example: '1969-07-20T20:17:40Z' }) original_time?: string;
  @IsOptional() @IsDateTime() @ApiField({ example: '1969-07-21T20:17:40Z' }) time?: string;
  @IsOptional()
  @IsString()
  @ApiField({
    example: EXAMPLE_IDS.item,
    nullable: true,
    description: 'The item, anchor or travel that depends on the event.',
  })
  dependent_id?: string | null;
}

/** A paradox verdict in both vocabularies the spec uses: B's `is_stable`, A's `timeline_stability`. */
export class VerdictResponse {
  @Matches(TIMELINE_ID) @ApiField({ example: EXAMPLE_IDS.timeline }) timeline_id!: string;
  @IsBoolean() @ApiField({ example: true }) is_stable!: boolean;
  @IsIn(['Stable', 'Unstable']) @ApiField({ example: 'Stable' }) timeline_stability!: string;
  @IsInt()
  @Min(0)
  @ApiField({
    example: 0,
    description:
      `How many reasons there are, counted up to ${CHECK_BOUNDS.counted} displaced events ` +
      `(\`reason_count_capped\`); \`reasons\` lists at most ${CHECK_BOUNDS.listed}.`,
  })
  reason_count!: number;
  @IsBoolean()
  @ApiField({
    example: false,
    description: 'True when the timeline holds more displaced events than were counted: `reason_count` is a minimum.',
  })
  reason_count_capped!: boolean;
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ParadoxReasonResponse)
  @ApiField({ example: [] })
  reasons!: ParadoxReasonResponse[];
}
