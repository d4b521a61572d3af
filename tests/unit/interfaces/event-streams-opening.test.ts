// A client that leaves while its stream is still opening (its key's slot being taken, its first
// read under way) must not leave a stream behind: Node tells a response of its connection's close
// once, and a listener added after that hears nothing.
import { once } from 'node:events';
import { InvalidApiKey } from '../../../src/core/domain/errors';
import { StreamSlots } from '../../../src/core/ports/stream-slots';
import type { EventStreamSource, SseMessage } from '../../../src/interfaces/http/event-stream/event-stream-source';
import { oneStreamServed } from '../../support/http/one-stream-served';
import { waitFor, within } from '../../support/wait-for';

/** Slots that let the test decide when a take completes, and record what happens to them, in order. */
class GatedSlots extends StreamSlots {
  readonly happened: string[] = [];
  private open: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  taking = false;
  /** Whether the key the streams were opened with is still valid when their slots are renewed. */
  keyValid = true;

  async take(): Promise<boolean> {
    this.taking = true;
    await this.gate;
    this.happened.push('taken');
    return true;
  }
  async renew(holders: readonly string[]): Promise<string[]> {
    this.happened.push('renewed');
    return this.keyValid ? [...holders] : [];
  }
  async release(): Promise<void> {
    this.happened.push('released');
  }
  letThrough(): void {
    this.open();
  }
}

/** A source that sends nothing until closed, as a caught-up stream with no changes does. */
function quietSource(): EventStreamSource & { closed: boolean } {
  let wake: () => void = () => undefined;
  const source = {
    closed: false,
    close() {
      source.closed = true;
      wake();
    },
    // Its only answer: done, once closed.
    [Symbol.asyncIterator]: (): AsyncIterator<SseMessage> => ({
      next: () =>
        new Promise<IteratorResult<SseMessage>>((resolve) => {
          wake = () => resolve({ done: true, value: undefined });
          if (source.closed) wake();
        }),
    }),
  };
  return source;
}

/** A stream of `quietSource()` opening, taking its slot of `slots`. */
async function anOpeningStream(slots: GatedSlots) {
  const source = quietSource();
  const endings = { onUnavailable: () => undefined, isUnavailable: () => false, logError: () => undefined };
  const served = await oneStreamServed(slots, source, endings);
  await waitFor(() => slots.taking, { what: 'the stream to start taking its slot' });
  return { ...served, source };
}

it('ends a stream whose client left while it opened, and gives its slot back', async () => {
  const slots = new GatedSlots();
  const { streams, source, client, answer, served, close } = await anOpeningStream(slots);
  try {
    expect(streams.size).toBe(1);

    const gone = once(answer(), 'close');
    client.destroy();
    await gone;
    slots.letThrough();

    await within(served(), { what: 'the stream of the client gone to end', timeoutMs: 2_000 });
    expect(streams.size).toBe(0);
    expect(source.closed).toBe(true);
    // Given back once taken (also when the stream ended, before: the take may land after that).
    expect(slots.happened.slice(-2)).toEqual(['taken', 'released']);
  } finally {
    close();
  }
});

it('checks the key again once the slot is held, when it changed while the stream opened', async () => {
  const slots = new GatedSlots();
  const { streams, served, close } = await anOpeningStream(slots);
  try {
    // Heard before the slot is held: there is no lease to renew yet, so nothing is checked now.
    slots.keyValid = false;
    streams.keyChanged('key_1');
    streams.keyChanged('key_2');
    expect(slots.happened).toEqual([]);
    slots.letThrough();

    await expect(
      within(served(), { what: 'the stream of the changed key to end', timeoutMs: 2_000 }),
    ).rejects.toBeInstanceOf(InvalidApiKey);
    expect(streams.size).toBe(0);
    expect(slots.happened).toEqual(['taken', 'renewed', 'released']);
  } finally {
    close();
  }
});
