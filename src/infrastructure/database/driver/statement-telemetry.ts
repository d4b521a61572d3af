import { context, type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import {
  ATTR_DB_NAMESPACE,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import type { ClientBase, Pool } from 'pg';
import { querySummary } from './query-summary';

/** Where the statements' times go when the metrics are on (database-metrics.ts). */
export interface StatementTimes {
  /** A statement answered (`errorType` empty) or failed, after `seconds`. */
  statement(summary: string, seconds: number, errorType: string): void;
  /** A request for a connection of the pool was served (or gave up) after `seconds`. */
  connectionWaited(seconds: number): void;
}

/** What is watched of the database's statements: spans, times, either or neither. */
export interface DatabaseTelemetry {
  readonly tracer?: Tracer;
  readonly times?: StatementTimes;
}

/** The server a pool reaches, as the spans name it; never its credentials. */
export interface DatabaseTarget {
  readonly address: string;
  readonly port: number;
  readonly database: string;
}

export function databaseTarget(connectionString: string): DatabaseTarget {
  const url = new URL(connectionString);
  const port = Number(url.port || 5432);
  return {
    address: url.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost',
    port,
    database: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
  };
}

type Query = (...args: unknown[]) => unknown;

/** A statement span's name until its summary names it (samplers see this one). */
const STATEMENT = 'statement';
type Callback = (error: unknown, result?: unknown) => void;

/**
 * Watches every statement of one connection, whoever sends it (Prisma's adapter, the service's
 * SqlRunner, the pool's session set-up): a client span named by its summary, child of the span
 * active when the statement was sent, and its time by summary. The text is the statement's with
 * its `$n` parameters, never their values.
 */
export function watchStatements(client: ClientBase, telemetry: DatabaseTelemetry, target: DatabaseTarget): void {
  const { tracer, times } = telemetry;
  if (!tracer && !times) return;
  const query = client.query.bind(client) as Query;
  const watched: Query = (...args) => {
    const first = args[0];
    // A submittable (pg's Query, pg-cursor) is answered through its own events, and node-postgres
    // returns it rather than a promise: passed on as it is, unwatched.
    if (isSubmittable(first)) return query(...args);
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | undefined)?.text;
    if (typeof text !== 'string') return query(...args);
    // Named once it is known to record: an unsampled statement, most of them at a low sampling
    // ratio, costs neither its summary nor its attributes, and nothing at all with the metrics off.
    const startedSpan = tracer?.startSpan(STATEMENT, { kind: SpanKind.CLIENT }, context.active());
    const span = startedSpan?.isRecording() ? startedSpan : undefined;
    if (!span && !times) return query(...args);
    const summary = querySummary(text);
    if (span) {
      span.updateName(summary);
      span.setAttributes({
        [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
        [ATTR_DB_QUERY_SUMMARY]: summary,
        [ATTR_DB_QUERY_TEXT]: text,
        [ATTR_DB_NAMESPACE]: target.database,
        [ATTR_SERVER_ADDRESS]: target.address,
        [ATTR_SERVER_PORT]: target.port,
      });
    }
    const started = performance.now();
    const done = (error: unknown) => {
      const errorType = error === undefined || error === null ? '' : failureType(error);
      times?.statement(summary, (performance.now() - started) / 1000, errorType);
      if (span) endStatement(span, error, errorType);
    };
    const last = args.at(-1);
    try {
      if (typeof last === 'function') {
        const callback = last as Callback;
        args[args.length - 1] = (error: unknown, result?: unknown) => {
          done(error);
          callback(error, result);
        };
        return query(...args);
      }
      const answer = query(...args) as Promise<unknown>;
      answer.then(
        () => done(undefined),
        (error: unknown) => done(error),
      );
      return answer;
    } catch (error) {
      // node-postgres refused the arguments before sending anything.
      done(error);
      throw error;
    }
  };
  // node-postgres's query has a dozen overloads; `watched` passes every form on unchanged.
  client.query = watched as ClientBase['query'];
}

/**
 * Times each wait for a connection of the pool, and hands the connection over in the context of
 * whoever asked: a request queued behind others would otherwise run its statements in the
 * context of the request that freed the connection, and its spans would join that trace.
 */
export function watchConnectionWaits(pool: Pool, telemetry: DatabaseTelemetry): void {
  const { tracer, times } = telemetry;
  if (!tracer && !times) return;
  const connect = pool.connect.bind(pool) as (callback: Callback) => void;
  const watched = (callback?: Callback): unknown => {
    const started = performance.now();
    const asked = context.active();
    const served = (resolve: Callback) => (error: unknown, client?: unknown, release?: unknown) => {
      times?.connectionWaited((performance.now() - started) / 1000);
      context.with(asked, () => (resolve as (...args: unknown[]) => void)(error, client, release));
    };
    if (callback) return connect(served(callback));
    return new Promise((resolve, reject) => {
      connect(served((error, client) => (error ? reject(error as Error) : resolve(client))));
    });
  };
  // As for query: the callback and the promise forms, both kept.
  pool.connect = watched as Pool['connect'];
}

/** What node-postgres takes as a submittable: an object with a `submit` method. */
function isSubmittable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'submit' in value && typeof value.submit === 'function';
}

function endStatement(span: Span, error: unknown, errorType: string): void {
  if (errorType !== '') {
    const code = sqlState(error);
    if (code) span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, code);
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  span.end();
}

/** PostgreSQL's SQLSTATE (`23505`), or what failed on the way (`ECONNRESET`, the error's class). */
function failureType(error: unknown): string {
  const code = sqlState(error);
  if (code) return code;
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string')
    return error.code;
  return error instanceof Error ? error.constructor.name : 'Error';
}

function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && typeof severity === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
