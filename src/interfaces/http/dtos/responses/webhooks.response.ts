import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import { ATTEMPT_ERRORS } from '../../../../core/domain/webhook-attempt';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_MESSAGE_TYPES } from '../../../../core/domain/webhook-endpoint';
import { ApiField } from '../../openapi/api-field';
import { IsDateTime } from '../../validation/decorators';
import { EXAMPLE_IDS, idOf } from './ids';
import { NextCursor } from './next-cursor';

/** Standard Webhooks' form of a secret: `whsec_` and the base64 of 32 random bytes. */
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7N9uZtOYZPI=';

/** An endpoint as every operation but its creation answers it: never its secret. */
export class WebhookEndpointResponse {
  @Matches(idOf('whk')) @ApiField({ example: EXAMPLE_IDS.webhookEndpoint }) id!: string;
  @Matches(/^https?:\/\//)
  @ApiField({ example: 'https://example.com/webhooks', description: 'As the WHATWG URL parser writes it.' })
  url!: string;
  @IsArray()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  @ApiField({ example: ['event.recorded', 'event.updated'] })
  event_types!: string[];
  @IsString() @ApiField({ example: 'Production', nullable: true }) description!: string | null;
  @IsIn(['enabled', 'disabled']) @ApiField({ example: 'enabled' }) status!: string;
  @IsIn(['gone', 'failing', 'by_owner'])
  @ApiField({
    example: null,
    nullable: true,
    description:
      'Why it is disabled: `gone` (it answered 410), `failing` (every attempt failed for 5 days) or ' +
      '`by_owner`; `null` while enabled.',
  })
  disabled_reason!: string | null;
  @IsDateTime() @ApiField({ example: '2026-11-29T08:00:00Z' }) created_at!: string;
}

/** The endpoint just made, with the secret that signs its deliveries: shown only this once. */
export class NewWebhookEndpointResponse extends WebhookEndpointResponse {
  @Matches(SECRET)
  @ApiField({
    example: EXAMPLE_SECRET,
    description: 'Shown only this once: verify each delivery with it (Standard Webhooks).',
  })
  secret!: string;
}

/** A rolled secret: the one it replaces signs beside it for 24 hours. */
export class WebhookSecretResponse {
  @Matches(SECRET)
  @ApiField({ example: EXAMPLE_SECRET, description: 'Shown only this once.' })
  secret!: string;
}

/** GET /v1/webhook-endpoints: one page, oldest first. */
export class WebhookEndpointPageResponse {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => WebhookEndpointResponse)
  endpoints!: WebhookEndpointResponse[];
  @NextCursor() next_cursor!: string | null;
}

/** One attempt of one message to the endpoint. */
export class WebhookDeliveryResponse {
  @Matches(idOf('msg'))
  @ApiField({ example: EXAMPLE_IDS.webhookMessage, description: 'The `webhook-id` of each of its attempts.' })
  message_id!: string;
  @IsIn(WEBHOOK_MESSAGE_TYPES) @ApiField({ example: 'event.recorded' }) event_type!: string;
  @IsInt()
  @Min(1)
  @ApiField({ example: 1, description: "The message's attempts, 1 for the first, counting on through resends." })
  attempt!: number;
  @IsDateTime() @ApiField({ example: '2026-11-29T08:00:00Z' }) attempted_at!: string;
  @IsInt()
  @Min(100)
  @Max(599)
  @ApiField({ example: 500, nullable: true, description: "The answer's HTTP status; `null` when none came." })
  status!: number | null;
  @IsIn(ATTEMPT_ERRORS)
  @ApiField({
    example: null,
    nullable: true,
    description:
      'Why no answer came, or why the one that came was not read whole: `timeout` (15 s), `refused`, `tls`, ' +
      '`dns`, `address_not_allowed` (the host leads where webhooks may not go), `redirect` (not followed), ' +
      '`too_large` (past 64 KiB), `network`; `null` when an answer was read.',
  })
  error!: string | null;
  @IsInt()
  @Min(0)
  @ApiField({ example: 84, description: 'From the request sent to the answer read.' })
  duration_ms!: number;
  @IsString()
  @ApiField({ example: 'Internal Server Error', description: "The answer's body, its first KiB, as text." })
  answer!: string;
  @IsDateTime()
  @ApiField({
    example: '2026-11-29T08:05:00Z',
    nullable: true,
    description: 'When the retry this attempt scheduled is due; `null` when none followed it.',
  })
  next_attempt_at!: string | null;
}

/** GET /v1/webhook-endpoints/{endpoint_id}/deliveries: one page, newest first. */
export class WebhookDeliveryPageResponse {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => WebhookDeliveryResponse)
  deliveries!: WebhookDeliveryResponse[];
  @NextCursor() next_cursor!: string | null;
}

/** A message queued for its next attempt, by a resend or a test. */
export class WebhookMessageResponse {
  @Matches(idOf('msg'))
  @ApiField({ example: EXAMPLE_IDS.webhookMessage, description: 'The `webhook-id` its attempts carry.' })
  message_id!: string;
  @IsIn(WEBHOOK_MESSAGE_TYPES) @ApiField({ example: 'webhook.test' }) event_type!: string;
  @IsIn(['pending'])
  @ApiField({ example: 'pending', description: 'Its next attempt is queued, due now.' })
  state!: string;
  @IsInt()
  @Min(0)
  @ApiField({ example: 0, description: 'Its attempts so far: the next is this number plus one.' })
  attempts!: number;
}
