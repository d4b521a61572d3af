import type { JsonObject } from './schemas';

/** What a streaming GET adds to its description (docs/decisions.md, "Event streams"). */
export const STREAM_DESCRIPTION =
  'With `Accept: text/event-stream` the answer is a stream of Server-Sent Events with the same parameters ' +
  '(but `cursor` and `limit`): first the events recorded, oldest first (`event: recorded`), then ' +
  '`event: caught-up` (data: `{"timeline_id"}`) once everything recorded so far is sent, then each change as it ' +
  'is written by any process: a new event (`recorded`) or one a manipulation moved (`updated`, its whole new ' +
  "state, which may be outside the range now). Each message's `data` is one event as in `events`, and its `id` " +
  'a position: send it back as `Last-Event-ID` when reconnecting to receive what came after it, nothing twice ' +
  '(a `caught-up` with nothing new since the message before it, or since `Last-Event-ID`, has no `id`; an empty ' +
  '`Last-Event-ID` is none). ' +
  'Opening a stream counts as one request against the rate limit, and what it sends before `caught-up` one ' +
  'more per 100 events after the first 100, as the listing counts its pages, taking at most half of each ' +
  "second's quota: past that the stream waits for the next second and goes on. " +
  '`retry` says how long to wait before reconnecting, and a comment line every 15 s keeps an idle stream open. ' +
  'Without `timeline_id` the stream watches the timeline the traveller is on when it opens. A stream ends when ' +
  'the service stops or loses its database: reconnect with `Last-Event-ID`.';

/** The header a reconnecting client sends: the `id` of the last message it received. */
export const LAST_EVENT_ID_PARAMETER: JsonObject = {
  name: 'Last-Event-ID',
  in: 'header',
  required: false,
  description:
    'With `Accept: text/event-stream`: the `id` of the last message received, to resume the stream after it. ' +
    'EventSource clients send it themselves when they reconnect.',
  schema: { type: 'string', maxLength: 1000 },
};

/** The success answer's second form, the stream. */
export const EVENT_STREAM_CONTENT: JsonObject = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description: 'Server-Sent Events: `retry`, then messages with `id`, `event` and one line of JSON `data`.',
    },
    example: [
      'retry: 2000',
      '',
      'id: WyJyIiwicHJpbWFyeSIsIjQiLC0xNDE4Mjk0MDAwMCwiZXZ0XzEiLCI4bHJUS1NZQVN5Wjh1bUZDIl0',
      'event: recorded',
      'data: {"event_id":"evt_1","time":"1969-07-20T20:17:40Z","description":"Traveller arrives at Sea of ' +
        'Tranquility","location":"Sea of Tranquility","timeline_id":"primary","kind":"arrival",' +
        '"original_time":"1969-07-20T20:17:40Z","manipulated":false}',
      '',
      'id: WyJjIiwicHJpbWFyeSIsIjQiLG51bGwsIjhsclRLU1lBU3laOHVtRkMiXQ',
      'event: caught-up',
      'data: {"timeline_id":"primary"}',
      '',
      ': heartbeat',
      '',
      '',
    ].join('\n'),
  },
};
