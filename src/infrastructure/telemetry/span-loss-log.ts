import { context, ROOT_CONTEXT } from '@opentelemetry/api';

/** The least time between two lines about lost spans. */
export const SPAN_LOSS_LOG_INTERVAL_MS = 60_000;

/** Distinct export errors one line names; the rest are counted as `other`. */
const ERRORS_NAMED = 5;

/**
 * One warning line at most a minute about spans that were not exported: with a collector that is
 * down or stalled, spans are dropped and exports fail many times a second, and a line each would
 * flood the log. The first loss is said at once; the losses that follow within the minute, in one
 * line when it is over: how many spans, why (`error.type`, as otel_sdk_processor_span_processed_total
 * counts them), and the export errors heard (OpenTelemetry's global error handler).
 */
export class SpanLossLog {
  private readonly spans = new Map<string, number>();
  private readonly errors = new Map<string, number>();
  private lastLine = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: { warn(fields: object, message: string): void },
    private readonly intervalMs = SPAN_LOSS_LOG_INTERVAL_MS,
  ) {}

  readonly spansLost = (count: number, errorType: string): void => {
    this.spans.set(errorType, (this.spans.get(errorType) ?? 0) + count);
    this.soon();
  };

  readonly exportFailed = (error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    const key = this.errors.has(message) || this.errors.size < ERRORS_NAMED ? message : 'other';
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
    this.soon();
  };

  private soon(): void {
    if (this.timer !== undefined) return;
    const wait = this.lastLine + this.intervalMs - Date.now();
    if (wait <= 0) {
      this.write();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.write();
    }, wait);
    // Losses never hold the process up at its stop.
    this.timer.unref();
  }

  private write(): void {
    const lost = [...this.spans.values()].reduce((sum, count) => sum + count, 0);
    const fields = {
      spans_lost: lost,
      spans_lost_by_error_type: Object.fromEntries(this.spans),
      export_errors: Object.fromEntries(this.errors),
    };
    // Outside any span: the request that happened to end a batch is not what the line is about.
    context.with(ROOT_CONTEXT, () =>
      this.logger.warn(
        fields,
        `OpenTelemetry: ${lost} spans not exported (their queue full, or their export failed); ` +
          'said at most once a minute',
      ),
    );
    this.spans.clear();
    this.errors.clear();
    this.lastLine = Date.now();
  }
}
