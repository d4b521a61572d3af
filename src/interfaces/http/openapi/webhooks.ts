// The OpenAPI 3.1 `webhooks` map: each message type an endpoint receives, as the request the
// service makes, from the payload classes the presenter is held to (webhook-payloads.response.ts).
import type { ClassConstructor } from 'class-transformer';
import { EXAMPLE_IDS, idOf } from '../dtos/responses/ids';
import {
  EventRecordedPayload,
  EventUpdatedPayload,
  TestPayload,
  WindowClosedPayload,
} from '../dtos/responses/webhook-payloads.response';
import { exampleOf } from './examples';
import { TAGS } from './operation';
import { type JsonObject, refTo } from './schemas';

interface WebhookType {
  readonly type: string;
  readonly operationId: string;
  readonly payload: ClassConstructor<object>;
  readonly summary: string;
  readonly description: string;
}

const WEBHOOK_TYPES: readonly WebhookType[] = [
  {
    type: 'event.recorded',
    operationId: 'eventRecordedWebhook',
    payload: EventRecordedPayload,
    summary: 'An event was recorded.',
    description: 'Sent for each event a write records, to the enabled endpoints subscribed to `event.recorded`.',
  },
  {
    type: 'event.updated',
    operationId: 'eventUpdatedWebhook',
    payload: EventUpdatedPayload,
    summary: 'An event changed.',
    description:
      'Sent for each event a write changes as a receiver sees it (a manipulation), to the enabled endpoints ' +
      'subscribed to `event.updated`. Keep, of one `event_id`, the message with the highest `revision`.',
  },
  {
    type: 'timeline.window_closed',
    operationId: 'timelineWindowClosedWebhook',
    payload: WindowClosedPayload,
    summary: "A timeline's travel window closed on the journey.",
    description:
      'Sent once per timeline when its travel window closed before the journey was completed, whatever ' +
      'state made it close, to the enabled endpoints subscribed to `timeline.window_closed`.',
  },
  {
    type: 'webhook.test',
    operationId: 'testWebhook',
    payload: TestPayload,
    summary: 'A test the endpoint was sent.',
    description: "Sent when the endpoint's owner asks (`POST /v1/webhook-endpoints/{endpoint_id}/test`).",
  },
];

export const WEBHOOK_PAYLOADS = WEBHOOK_TYPES.map(({ payload }) => payload);

const ABOUT_EVERY_MESSAGE =
  "Signed as Standard Webhooks say: verify `webhook-signature` with the endpoint's secret before trusting " +
  'the body. Messages are not delivered in order and may arrive more than once (a retry, a resend): ' +
  'deduplicate by `webhook-id`.';

const SIGNATURE_HEADERS: JsonObject[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The message's id, the same on every attempt and resend of it.",
    schema: { type: 'string', pattern: idOf('msg').source },
    example: EXAMPLE_IDS.webhookMessage,
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: "The attempt's time, in seconds since the Unix epoch: refuse one too far from your clock.",
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1795939200',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` and the base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the ' +
      'secret; two, space-separated, for a day after the secret is rolled.',
    schema: { type: 'string' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

/** The `webhooks` map of the document: one POST per message type, its body a payload class's schema. */
export function webhookOperations(schemas: Readonly<Record<string, JsonObject>>): Record<string, JsonObject> {
  return Object.fromEntries(
    WEBHOOK_TYPES.map(({ type, operationId, payload, summary, description }) => {
      const schema = refTo(payload);
      const example = exampleOf(schema, schemas);
      const operation = {
        operationId,
        summary,
        description: `${description} ${ABOUT_EVERY_MESSAGE}`,
        tags: [TAGS.webhooks.name],
        security: [],
        parameters: SIGNATURE_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
        },
        responses: {
          '200': { description: 'Any 2xx within 15 s: delivered. Nothing more is sent for the message.' },
          '410': { description: 'Gone: the endpoint is disabled at once, and the message failed.' },
          default: {
            description:
              'Anything else, or no answer: tried again on the retry schedule, honouring the `Retry-After` ' +
              'of a 429 or 503.',
          },
        },
      };
      return [type, { post: operation }];
    }),
  );
}
