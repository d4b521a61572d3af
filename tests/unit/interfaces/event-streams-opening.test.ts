// A client that leaves while its stream is still opening (its key's slot being taken, its first
// read under way) must not leave a stream behind: Node tells a response of its connection's close
// once, and a listener added after that hears nothing.
import { once } from 'node:events';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { InvalidApiKey } from '../../../src/core/domain/errors';
import { StreamSlots } from '../../../src/core/ports/stream-slots';
import type { EventStreamSource, SseMessage } from '../../../src/interfaces/http/event-stream/event-stream-source';
import { EventStreams } from '../../../src/interfaces/http/event-stream/event-streams';
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

/** A process's streams over `slots`, served at /stream on a port of the loopback, and one client asking. */
async function anOpeningStream(slots: GatedSlots) {
  // A lease of an hour: no renewal comes during a test unless the streams ask for one.
  const streams = new EventStreams(slots, {
    perProcess: 4,
    perAccount: 2,
    heartbeatMs: 60_000,
    retryMs: 100,
    leaseMs: 3_600_000,
  });
  const source = quietSource();
  const app = express();
  let answer: express.Response | undefined;
  let served: Promise<void> = Promise.resolve();
  app.get('/stream', (_req, res) => {
    answer = res;
    const endings = { onUnavailable: () => undefined, isUnavailable: () => false, logError: () => undefined };
    served = streams.serve(res, { apiKeyId: 'key_1', accountId: 'acc_1' }, async () => source, endings);
    // A refusal is answered, as the route's problem handler answers it: the connection is let go.
    served.catch(() => res.status(401).end());
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`);
  client.on('error', () => undefined);
  client.end();
  await waitFor(() => slots.taking, { what: 'the stream to start taking its slot' });
  return {
    streams,
    source,
    client,
    answer: () => answer as express.Response,
    served: () => served,
    close() {
      streams.closeAll();
      client.destroy();
      server.close();
      server.closeAllConnections();
    },
  };
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
