/** One Server-Sent Events message. `data` is one line (JSON has no raw line break). */
export interface SseMessage {
  /** Its position, to resume from; none when it does not move the position on. */
  readonly id?: string;
  readonly event: string;
  readonly data: string;
  /** The trace of the request that wrote what it carries (a W3C traceparent), if known. */
  readonly origin?: string | null;
}

/** What a streaming route answers: its messages, until it or the client ends them. */
export interface EventStreamSource extends AsyncIterable<SseMessage> {
  close(): void;
}
