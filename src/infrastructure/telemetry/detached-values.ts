import type { Context } from '@opentelemetry/api';
import type { Span, SpanProcessor } from '@opentelemetry/sdk-trace';

/**
 * Makes the attribute values the SDK cut to the span limit strings of their own, as each span ends.
 * The SDK cuts with `substring`, and V8 makes a substring of 13 characters or more a view into the
 * whole string: a 15 KB `User-Agent` cut to 4 KiB would still keep its 15 KB alive for as long as
 * the span waits in the queue for its export. Only values of exactly the limit's length are copied
 * (the cut ones, and the rare value that long already); the others are the SDK's as they came.
 */
export class DetachedValues implements SpanProcessor {
  constructor(private readonly valueLengthLimit: number) {}

  onEnding(span: Span): void {
    // Every sampled span passes here: no array of entries made for it.
    for (const key in span.attributes) {
      const value = span.attributes[key];
      if (typeof value === 'string' && value.length === this.valueLengthLimit) span.setAttribute(key, ownCopy(value));
    }
  }

  onStart(_span: Span, _parentContext: Context): void {}
  onEnd(): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** `text` as a string of its own, one byte a character when it can be (as V8 would keep it). */
function ownCopy(text: string): string {
  const encoding = /[\u0100-\uffff]/.test(text) ? 'utf16le' : 'latin1';
  return Buffer.from(text, encoding).toString(encoding);
}
