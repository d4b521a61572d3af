import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Tracer } from '@opentelemetry/api';
import type { AttemptError, AttemptResult } from '../../core/domain/webhook-attempt';
import type { WallClock } from '../../core/ports/wall-clock';
import type { WebhookDestinations } from '../../core/ports/webhook-destinations';
import type { OutgoingWebhook, WebhookSender } from '../../core/ports/webhook-sender';
import { SERVICE_NAME } from '../telemetry/service-name';
import { readAnswer } from './answer-reading';
import { attemptError } from './attempt-errors';
import { endAttemptSpan, startAttemptSpan } from './attempt-spans';
import { type Agents, postPinned } from './pinned-post';
import { retryAfterSeconds } from './retry-after';
import { type WebhookSignatureHeaders, webhookSignatureHeaders } from './webhook-signature';

/** An attempt's whole time, from resolving the name to the answer's last byte (Standard Webhooks' 15 s). */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 15_000;
/** An idle kept connection is closed before the 5 s after which Node's and many servers close theirs. */
const IDLE_CONNECTION_MS = 4_000;
export const WEBHOOK_USER_AGENT = `${SERVICE_NAME}-webhooks/1 (Standard Webhooks)`;

export interface HttpWebhookSenderOptions {
  readonly timeoutMs?: number;
  /** Certificates trusted instead of the system's: the tests' own. */
  readonly ca?: string;
  /** Makes each attempt a CLIENT span (attempt-spans.ts); without one (tracing off), none is made. */
  readonly tracer?: Tracer;
}

type Exchange = Omit<AttemptResult, 'durationMs'>;

const WEB_SCHEMES = new Set(['https:', 'http:']);

/**
 * Sends one attempt over node:http(s): the destination checked again now, the connection made to
 * an address that check allowed, signed by Standard Webhooks' rules, under one deadline.
 */
export class HttpWebhookSender implements WebhookSender {
  // Connections are kept between attempts to one endpoint: a TLS handshake per delivery would cost
  // more than the delivery. Only to addresses once checked, so reusing one reaches nothing new.
  private readonly agents: Agents;
  private readonly timeoutMs: number;
  private readonly tracer: Tracer | undefined;

  constructor(
    private readonly destinations: WebhookDestinations,
    private readonly clock: WallClock,
    options: HttpWebhookSenderOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS;
    this.tracer = options.tracer;
    this.agents = {
      http: new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
      https: new HttpsAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS, ca: options.ca }),
    };
  }

  async send(webhook: OutgoingWebhook): Promise<AttemptResult> {
    const url = URL.parse(webhook.url);
    const span = startAttemptSpan(this.tracer, url, webhook.origin);
    const result = await this.attempt(webhook, url);
    endAttemptSpan(span, result);
    return result;
  }

  /** Closes the connections kept for later attempts, at the process's stop. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async attempt(webhook: OutgoingWebhook, url: URL | null): Promise<AttemptResult> {
    const started = performance.now();
    // Outside the attempt's failures: a secret that is no whsec_ one is the service's fault, not the endpoint's.
    const signed = { messageId: webhook.messageId, timestamp: this.clock.now(), body: webhook.body };
    const signature = webhookSignatureHeaders(signed, webhook.secrets);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    try {
      const exchange = await this.exchange(url, webhook.body, signature, deadline.signal);
      return { ...exchange, durationMs: msSince(started) };
    } catch (error) {
      const failure = deadline.signal.aborted ? 'timeout' : attemptError(error);
      return { ...noAnswer(failure), durationMs: msSince(started) };
    } finally {
      clearTimeout(timer);
    }
  }

  private async exchange(
    url: URL | null,
    text: string,
    signature: WebhookSignatureHeaders,
    deadline: AbortSignal,
  ): Promise<Exchange> {
    // A URL that does not parse, or of a scheme that is no HTTP's, leads nowhere a delivery may go.
    if (url === null || !WEB_SCHEMES.has(url.protocol)) return noAnswer('address_not_allowed');
    const check = await beforeDeadline(this.destinations.check(url), deadline);
    if (!check.allowed) return noAnswer(check.reason);

    const body = Buffer.from(text, 'utf8');
    const headers = {
      ...signature,
      host: url.host,
      'content-type': 'application/json',
      'content-length': body.length,
      'user-agent': WEBHOOK_USER_AGENT,
    };
    const response = await postPinned({ url, addresses: check.addresses, headers, body, deadline }, this.agents);
    const status = response.statusCode ?? null;
    const retryAfter = retryAfterSeconds(response.headers['retry-after'], this.clock.now());
    const read = await readAnswer(response, deadline);
    // Not followed, by the specification's rule: a redirect could also lead past the address check.
    const redirected = status !== null && status >= 300 && status <= 399;
    return { status, error: redirected ? 'redirect' : read.error, answer: read.answer, retryAfterSeconds: retryAfter };
  }
}

function noAnswer(error: AttemptError): Exchange {
  return { status: null, error, answer: '', retryAfterSeconds: null };
}

const msSince = (started: number) => Math.round(performance.now() - started);

/** The work's result, or the deadline's abort if that comes first (a resolver that hangs). */
function beforeDeadline<T>(work: Promise<T>, deadline: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(deadline.reason);
    if (deadline.aborted) abort();
    deadline.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        deadline.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        deadline.removeEventListener('abort', abort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
