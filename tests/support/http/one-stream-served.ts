import { once } from 'node:events';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import express from 'express';
import type { StreamSlots } from '../../../src/core/ports/stream-slots';
import type { EventStreamSource } from '../../../src/interfaces/http/event-stream/event-stream-source';
import { EventStreams } from '../../../src/interfaces/http/event-stream/event-streams';
import type { StreamEndings } from '../../../src/interfaces/http/event-stream/open-stream';
import type { AccountLimit } from '../../../src/interfaces/http/middleware/rate-limit';
import { traceRequests } from '../../../src/interfaces/http/middleware/trace-request';

/**
 * A process's streams over `slots`, serving `source` at /stream on a port of the loopback, and one
 * client asking for it. A lease of an hour unless `leaseMs` says otherwise: no renewal comes during
 * a test unless it asks for one. With a `tracer`, the request has its server span, as in the service.
 */
export async function oneStreamServed(
  slots: StreamSlots,
  source: EventStreamSource,
  endings: StreamEndings,
  tracer?: Tracer,
  {
    leaseMs = 3_600_000,
    accountLimit,
  }: {
    readonly leaseMs?: number;
    /** The account's rate limit, which the stream's catch-up pays (catch-up-pacing.ts). */
    readonly accountLimit?: AccountLimit;
  } = {},
) {
  const streams = new EventStreams(slots, { perProcess: 4, perAccount: 2, heartbeatMs: 60_000, retryMs: 100, leaseMs });
  const app = express();
  if (tracer) app.use(traceRequests(tracer));
  let answer: express.Response | undefined;
  let served: Promise<void> = Promise.resolve();
  app.get('/stream', (_req, res) => {
    answer = res;
    served = streams.serve(res, { apiKeyId: 'key_1', accountId: 'acc_1' }, async () => source, endings, accountLimit);
    // A refusal is answered, as the route's problem handler answers it: the connection is let go.
    served.catch(() => res.status(401).end());
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`);
  client.on('error', () => undefined);
  client.end();
  return {
    streams,
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
