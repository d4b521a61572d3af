import { AccountQueue } from '../../../src/infrastructure/persistence/postgres/unit-of-work/account-queue';

describe("AccountQueue: an account's units one after another, and background work giving way to them", () => {
  it('runs the units of one account in turn, and of two accounts side by side', async () => {
    const queue = new AccountQueue();
    const order: string[] = [];
    const leaveFirst = await queue.enter('acc_a');
    const second = queue.enter('acc_a').then((leave) => {
      order.push('a second');
      leave();
    });
    const other = await queue.enter('acc_b');
    order.push('b first');
    other();
    await Promise.resolve();
    expect(order).toEqual(['b first']);
    leaveFirst();
    await second;
    expect(order).toEqual(['b first', 'a second']);
  });

  it('gives way at once, having waited 0 ms, while no unit of the account waits', async () => {
    const queue = new AccountQueue();
    expect(await queue.giveWay('acc_a', 1_000)).toBe(0);
    const leave = await queue.enter('acc_a');
    // One running, none waiting behind it: nothing to give way to.
    expect(await queue.giveWay('acc_a', 1_000)).toBe(0);
    leave();
  });

  it('waits while units of the account wait their turn, until none does', async () => {
    const queue = new AccountQueue();
    const leaveFirst = await queue.enter('acc_a');
    const second = queue.enter('acc_a');
    let gaveWay: number | undefined;
    const givingWay = queue.giveWay('acc_a', 10_000).then((ms) => (gaveWay = ms));
    // Another account's units are not this one's.
    expect(await queue.giveWay('acc_b', 10_000)).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gaveWay).toBeUndefined();

    leaveFirst();
    const leaveSecond = await second;
    await givingWay;
    expect(gaveWay).toBeGreaterThanOrEqual(15);
    leaveSecond();
  });

  it('waits no longer than it is told to when units keep waiting', async () => {
    const queue = new AccountQueue();
    const leaveFirst = await queue.enter('acc_a');
    const second = queue.enter('acc_a');
    const waited = await queue.giveWay('acc_a', 30);
    expect(waited).toBeGreaterThanOrEqual(25);
    expect(waited).toBeLessThan(1_000);
    leaveFirst();
    (await second)();
    // Left twice, a unit counts once: the account is free again.
    leaveFirst();
    expect(await queue.giveWay('acc_a', 1_000)).toBe(0);
  });
});
