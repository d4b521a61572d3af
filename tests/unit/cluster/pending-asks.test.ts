import { PendingAsks, UNANSWERED } from '../../../src/cluster/pending-asks';

describe('PendingAsks', () => {
  afterEach(() => jest.useRealTimers());

  it('settles each ask with the answer that names its id, and no other', async () => {
    const asks = new PendingAsks<string>();
    const sent: number[] = [];
    const first = asks.ask((id) => sent.push(id) > 0);
    const second = asks.ask((id) => sent.push(id) > 0);
    expect(sent).toEqual([first.id, second.id]);
    expect(first.id).not.toBe(second.id);
    expect(asks.answered(second.id, 'two')).toBe(true);
    expect(asks.answered(first.id, 'one')).toBe(true);
    await expect(first.answer).resolves.toBe('one');
    await expect(second.answer).resolves.toBe('two');
    expect(asks.size).toBe(0);
  });

  it('takes no second answer, and none for an id never asked', () => {
    const asks = new PendingAsks<string>();
    const { id } = asks.ask(() => true);
    expect(asks.answered(id, 'first')).toBe(true);
    expect(asks.answered(id, 'again')).toBe(false);
    expect(asks.answered(id + 100, 'stray')).toBe(false);
  });

  it('settles unanswered at once when the ask could not be sent', async () => {
    const asks = new PendingAsks<string>();
    const { answer } = asks.ask(() => false);
    await expect(answer).resolves.toBe(UNANSWERED);
    expect(asks.size).toBe(0);
  });

  it('settles unanswered after its timeout, and a late answer finds no ask', async () => {
    jest.useFakeTimers();
    const asks = new PendingAsks<string>(2_000);
    const { id, answer } = asks.ask(() => true);
    const settled = jest.fn();
    void answer.then(settled);
    jest.advanceTimersByTime(1_999);
    await Promise.resolve();
    expect(settled).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    await expect(answer).resolves.toBe(UNANSWERED);
    expect(asks.answered(id, 'late')).toBe(false);
  });

  it('waits without end when it has no timeout', async () => {
    jest.useFakeTimers();
    const asks = new PendingAsks<string>();
    const { id } = asks.ask(() => true);
    jest.advanceTimersByTime(3_600_000);
    expect(asks.size).toBe(1);
    expect(asks.answered(id, 'at last')).toBe(true);
  });

  it('settles every waiting ask unanswered when the other end is gone', async () => {
    const asks = new PendingAsks<string>();
    const answers = [asks.ask(() => true).answer, asks.ask(() => true).answer];
    asks.unansweredAll();
    await expect(Promise.all(answers)).resolves.toEqual([UNANSWERED, UNANSWERED]);
    expect(asks.size).toBe(0);
  });

  it('forgets a withdrawn ask: no answer settles it, and it is withdrawn once', async () => {
    const asks = new PendingAsks<string>(1_000);
    const { id, answer } = asks.ask(() => true);
    const settled = jest.fn();
    void answer.then(settled);
    expect(asks.withdraw(id)).toBe(true);
    expect(asks.withdraw(id)).toBe(false);
    expect(asks.answered(id, 'too late')).toBe(false);
    asks.unansweredAll();
    await Promise.resolve();
    expect(settled).not.toHaveBeenCalled();
  });
});
