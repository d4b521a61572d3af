// A stream's read may still be under way when the stream ends (the client leaves, the service stops
// and closes its pool): its failure then is that ending, not a fault to log. A read that fails while
// the stream is open is one.
import type { EventStreamSource, SseMessage } from '../../../src/interfaces/http/event-stream/event-stream-source';
import { FreeSlots } from '../../support/http/free-slots';
import { oneStreamServed } from '../../support/http/one-stream-served';
import { waitFor, within } from '../../support/wait-for';

/** A source whose one read is under way until `fail` ends it with an error, as a closed pool's does. */
function readingSource() {
  let failRead: (error: Error) => void = () => undefined;
  const source: EventStreamSource & { reading: boolean; fail: (error: Error) => void } = {
    reading: false,
    fail: (error) => failRead(error),
    // Closing does not cancel a statement already sent: the read goes on until it fails.
    close: () => undefined,
    [Symbol.asyncIterator]: (): AsyncIterator<SseMessage> => ({
      next: () =>
        new Promise<IteratorResult<SseMessage>>((_resolve, reject) => {
          source.reading = true;
          failRead = reject;
        }),
    }),
  };
  return source;
}

async function aStreamReading() {
  const source = readingSource();
  const logged: unknown[] = [];
  const endings = {
    onUnavailable: () => undefined,
    isUnavailable: () => false,
    logError: (error: unknown) => logged.push(error),
  };
  const served = await oneStreamServed(new FreeSlots(), source, endings);
  await waitFor(() => source.reading, { what: 'the stream to start its read' });
  return { ...served, source, logged };
}

it('does not log a read that fails after its stream ended', async () => {
  const { streams, source, logged, served, close } = await aStreamReading();
  try {
    streams.closeAll();
    source.fail(new Error('Cannot use a pool after calling end on the pool'));
    await within(served(), { what: 'the stream to end', timeoutMs: 2_000 });
    expect(streams.size).toBe(0);
    expect(logged).toEqual([]);
  } finally {
    close();
  }
});

it('logs a read that fails while its stream is open, and ends the stream', async () => {
  const { streams, source, logged, served, close } = await aStreamReading();
  try {
    const fault = new Error('a fault of the read');
    source.fail(fault);
    await within(served(), { what: 'the stream to end', timeoutMs: 2_000 });
    expect(streams.size).toBe(0);
    expect(logged).toEqual([fault]);
  } finally {
    close();
  }
});
