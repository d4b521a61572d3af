// The bodies webhook endpoints receive (presenters/webhook-payloads.ts renders them), as the
// OpenAPI document's `webhooks` map describes them: one class per type, checked against what the
// presenter renders (webhook-payloads.test.ts).
import { Type } from 'class-transformer';
import { IsIn, IsInt, Matches, Min, ValidateNested } from 'class-validator';
import { ApiField } from '../../openapi/api-field';
import { IsDateTime } from '../../validation/decorators';
import { EXAMPLE_IDS, idOf } from './ids';
import { EventResponse, TimelineResponse } from './resources.response';

const TIMESTAMP = { example: '2026-11-29T08:00:00Z', description: 'When the message was recorded.' };

export class EventPayloadData {
  /** The event exactly as the event listings show it. */
  @ValidateNested() @Type(() => EventResponse) event!: EventResponse;
  @IsInt()
  @Min(0)
  @ApiField({
    example: 1,
    description:
      'The manipulations applied to the event: messages are not ordered, so keep, of one `event_id`, the ' +
      'message with the highest `revision`.',
  })
  revision!: number;
}

/** event.recorded: an event was recorded. */
export class EventRecordedPayload {
  @IsIn(['event.recorded']) @ApiField({ example: 'event.recorded' }) type!: string;
  @IsDateTime() @ApiField(TIMESTAMP) timestamp!: string;
  @ValidateNested() @Type(() => EventPayloadData) data!: EventPayloadData;
}

/** event.updated: an event changed as a receiver sees it. */
export class EventUpdatedPayload {
  @IsIn(['event.updated']) @ApiField({ example: 'event.updated' }) type!: string;
  @IsDateTime() @ApiField(TIMESTAMP) timestamp!: string;
  @ValidateNested() @Type(() => EventPayloadData) data!: EventPayloadData;
}

export class WindowClosedPayloadData {
  /** The timeline as `GET /v1/timelines/{timeline_id}` showed it when its window closed. */
  @ValidateNested() @Type(() => TimelineResponse) timeline!: TimelineResponse;
}

/** timeline.window_closed: a timeline's travel window closed on the journey. */
export class WindowClosedPayload {
  @IsIn(['timeline.window_closed']) @ApiField({ example: 'timeline.window_closed' }) type!: string;
  @IsDateTime() @ApiField(TIMESTAMP) timestamp!: string;
  @ValidateNested() @Type(() => WindowClosedPayloadData) data!: WindowClosedPayloadData;
}

export class TestPayloadData {
  @Matches(idOf('whk'))
  @ApiField({ example: EXAMPLE_IDS.webhookEndpoint, description: 'The endpoint tested.' })
  endpoint_id!: string;
}

/** webhook.test: sent when the endpoint's owner asks (POST /v1/webhook-endpoints/{endpoint_id}/test). */
export class TestPayload {
  @IsIn(['webhook.test']) @ApiField({ example: 'webhook.test' }) type!: string;
  @IsDateTime() @ApiField(TIMESTAMP) timestamp!: string;
  @ValidateNested() @Type(() => TestPayloadData) data!: TestPayloadData;
}
