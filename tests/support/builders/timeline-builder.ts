import { Timeline, type TimelineProps, type TimelineStatus } from '../../../src/core/domain/timeline';

/** A timeline of account `acc_1`, open, created at 2030-01-01T12:00Z with the default window. */
export class TimelineBuilder {
  private props: TimelineProps = {
    accountId: 'acc_1',
    id: 'tml_1',
    name: 'Moon landing',
    destinationTime: new Date('1969-07-20T20:17:40Z'),
    createdAt: new Date('2030-01-01T12:00:00Z'),
    status: 'open',
    windowMinutes: 12,
  };

  ofAccount(accountId: string): this {
    return this.with({ accountId });
  }

  withId(id: string): this {
    return this.with({ id });
  }

  withStatus(status: TimelineStatus): this {
    return this.with({ status });
  }

  createdAt(createdAt: Date | string): this {
    return this.with({ createdAt: new Date(createdAt) });
  }

  withWindowMinutes(windowMinutes: number): this {
    return this.with({ windowMinutes });
  }

  leadingTo(destinationTime: Date | string): this {
    return this.with({ destinationTime: new Date(destinationTime) });
  }

  build(): Timeline {
    return Timeline.restore(this.props);
  }

  private with(changes: Partial<TimelineProps>): this {
    this.props = { ...this.props, ...changes };
    return this;
  }
}

export function aTimeline(): TimelineBuilder {
  return new TimelineBuilder();
}

export function thePrimaryTimeline(createdAt: Date | string = '2030-01-01T00:00:00Z'): Timeline {
  return Timeline.primary('acc_1', new Date(createdAt));
}
