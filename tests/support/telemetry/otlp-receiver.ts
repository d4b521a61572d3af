// An OTLP/HTTP trace receiver for the tests: what a collector is to the service. It takes
// `POST /v1/traces` in both of OTLP/HTTP's encodings (binary protobuf, JSON), decodes every span,
// and keeps them for the test to read: ids as hex, attributes as plain values.
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes: Readonly<Record<string, unknown>> }>;
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>;
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly resource: Readonly<Record<string, unknown>>;
  /** How the batch it came in was encoded. */
  readonly encoding: 'protobuf' | 'json';
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

const root = protobuf.loadSync(path.join(__dirname, 'otlp-trace.proto'));
const ExportTraceServiceRequest = root.lookupType('otlp.ExportTraceServiceRequest');

export class OtlpReceiver {
  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
    readonly spans: ReceivedSpan[],
    /** Requests that were not a decodable trace export. */
    readonly refused: string[],
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const spans: ReceivedSpan[] = [];
    const refused: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        const type = req.headers['content-type'] ?? '';
        try {
          if (req.method !== 'POST' || req.url !== '/v1/traces') throw new Error(`${req.method} ${req.url}`);
          spans.push(...(type.startsWith('application/json') ? fromJson(body) : fromProtobuf(body)));
          res.writeHead(200, { 'Content-Type': type || 'application/x-protobuf' });
          res.end(type.startsWith('application/json') ? '{}' : undefined);
        } catch (error) {
          refused.push(String(error));
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return new OtlpReceiver(server, `http://127.0.0.1:${port}`, spans, refused);
  }

  named(name: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.name === name);
  }

  inTrace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface WireKeyValue {
  key: string;
  value?: WireAnyValue;
}
interface WireAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string | { toNumber(): number };
  doubleValue?: number;
  arrayValue?: { values?: WireAnyValue[] };
}
interface WireSpan {
  traceId: string | Uint8Array;
  spanId: string | Uint8Array;
  parentSpanId?: string | Uint8Array;
  name: string;
  kind?: number;
  attributes?: WireKeyValue[];
  events?: Array<{ name: string; attributes?: WireKeyValue[] }>;
  links?: Array<{ traceId: string | Uint8Array; spanId: string | Uint8Array }>;
  status?: { code?: number };
}
interface WireRequest {
  resourceSpans?: Array<{ resource?: { attributes?: WireKeyValue[] }; scopeSpans?: Array<{ spans?: WireSpan[] }> }>;
}

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const message = ExportTraceServiceRequest.decode(body);
  return spansOf(
    ExportTraceServiceRequest.toObject(message, { longs: Number, defaults: false }) as WireRequest,
    'protobuf',
  );
}

function fromJson(body: Buffer): ReceivedSpan[] {
  return spansOf(JSON.parse(body.toString('utf8')) as WireRequest, 'json');
}

function spansOf(request: WireRequest, encoding: ReceivedSpan['encoding']): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span): ReceivedSpan => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: span.parentSpanId === undefined ? '' : hex(span.parentSpanId),
        name: span.name,
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
        links: (span.links ?? []).map((link) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId) })),
        statusCode: span.status?.code ?? 0,
        resource,
        encoding,
      })),
    );
  });
}

/** OTLP/JSON writes ids as hex; protobuf as bytes. */
function hex(id: string | Uint8Array): string {
  return typeof id === 'string' ? id.toLowerCase() : Buffer.from(id).toString('hex');
}

function attributesOf(attributes: WireKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: WireAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}
