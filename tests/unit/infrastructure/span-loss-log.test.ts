// Spans lost (a full queue, a failed export) are said in one warning line at most a minute: the
// first at once, the rest summed when the minute is over.
import { SPAN_LOSS_LOG_INTERVAL_MS, SpanLossLog } from '../../../src/infrastructure/telemetry/span-loss-log';

interface Line {
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}

function loggedTo(lines: Line[]) {
  return { warn: (fields: object, message: string) => void lines.push({ fields: { ...fields }, message }) };
}

describe('the span loss log', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('says the first loss at once, and the losses of the minute after in one line', () => {
    const lines: Line[] = [];
    const log = new SpanLossLog(loggedTo(lines));
    log.spansLost(1, 'queue_full');
    expect(lines).toEqual([
      {
        fields: { spans_lost: 1, spans_lost_by_error_type: { queue_full: 1 }, export_errors: {} },
        message: expect.stringMatching(/^OpenTelemetry: 1 spans not exported/),
      },
    ]);

    for (let second = 1; second < 60; second++) {
      jest.advanceTimersByTime(1_000);
      log.spansLost(10, 'queue_full');
      log.spansLost(512, 'Error');
      log.exportFailed(new Error('Request timed out'));
    }
    expect(lines).toHaveLength(1);
    jest.advanceTimersByTime(1_000);
    expect(lines).toHaveLength(2);
    expect(lines[1]?.fields).toEqual({
      spans_lost: 59 * 522,
      spans_lost_by_error_type: { queue_full: 590, Error: 59 * 512 },
      export_errors: { 'Request timed out': 59 },
    });
  });

  it('says nothing while nothing is lost, and a loss after a quiet minute at once', () => {
    const lines: Line[] = [];
    const log = new SpanLossLog(loggedTo(lines));
    log.spansLost(3, 'queue_full');
    jest.advanceTimersByTime(10 * SPAN_LOSS_LOG_INTERVAL_MS);
    expect(lines).toHaveLength(1);
    log.spansLost(2, 'Error');
    expect(lines).toHaveLength(2);
    expect(lines[1]?.fields.spans_lost).toBe(2);
  });

  it('names a few distinct export errors, and counts the rest as other', () => {
    const lines: Line[] = [];
    const log = new SpanLossLog(loggedTo(lines));
    log.spansLost(1, 'queue_full');
    for (let error = 0; error < 8; error++) log.exportFailed(new Error(`collector said ${error}`));
    jest.advanceTimersByTime(SPAN_LOSS_LOG_INTERVAL_MS);
    expect(lines[1]?.fields.export_errors).toEqual({
      'collector said 0': 1,
      'collector said 1': 1,
      'collector said 2': 1,
      'collector said 3': 1,
      'collector said 4': 1,
      other: 3,
    });
  });
});
