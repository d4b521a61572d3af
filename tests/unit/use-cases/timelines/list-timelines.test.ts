import { MAX_PAGE_SIZE } from '../../../../src/core/use-cases/timelines/list-timelines';
import { anAccount } from '../../../support/builders/account-mother';
import { createTestCore, type TestCore } from '../../../support/builders/test-core';

async function someTimelines(core: TestCore, accountId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 1; n <= count; n += 1) {
    core.clock.advanceBy(1_000);
    const timeline = await core.createTimeline.execute({
      accountId,
      name: `Timeline ${n}`,
      destinationTime: new Date(Date.UTC(1900 + n, 0, 1)),
    });
    ids.push(timeline.id);
  }
  return ids;
}

describe('ListTimelines', () => {
  it('lists the account timelines oldest first, primary leading, on one page', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const ids = await someTimelines(core, accountId, 3);

    const page = await core.listTimelines.execute({ accountId });

    expect(page.timelines.map((timeline) => timeline.id)).toEqual(['primary', ...ids]);
    expect(page.next).toBeNull();
  });

  it("leaves out another account's timelines", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const other = await anAccount(core);
    await someTimelines(core, other, 2);

    const page = await core.listTimelines.execute({ accountId });

    expect(page.timelines.map((timeline) => [timeline.accountId, timeline.id])).toEqual([[accountId, 'primary']]);
  });

  it('pages with a cursor that continues exactly after the last timeline shown', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const ids = await someTimelines(core, accountId, 4);

    const first = await core.listTimelines.execute({ accountId, limit: 2 });
    expect(first.timelines.map((timeline) => timeline.id)).toEqual(['primary', ids[0]]);
    const lastOfFirst = first.timelines[1];
    expect(first.next).toEqual({ createdAt: lastOfFirst?.createdAt, id: lastOfFirst?.id });

    const second = await core.listTimelines.execute({ accountId, limit: 2, after: first.next });
    expect(second.timelines.map((timeline) => timeline.id)).toEqual([ids[1], ids[2]]);
    expect(second.next).not.toBeNull();

    const third = await core.listTimelines.execute({ accountId, limit: 2, after: second.next });
    expect(third.timelines.map((timeline) => timeline.id)).toEqual([ids[3]]);
    expect(third.next).toBeNull();
  });

  it('gives no next cursor when the last page is exactly full', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await someTimelines(core, accountId, 1);

    const page = await core.listTimelines.execute({ accountId, limit: 2 });

    expect(page.timelines).toHaveLength(2);
    expect(page.next).toBeNull();
  });

  it('orders timelines created at the same moment by id', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    core.clock.advanceMinutes(1);
    for (const name of ['a', 'b', 'c']) {
      await core.createTimeline.execute({ accountId, name, destinationTime: new Date('1900-01-01T00:00:00Z') });
    }

    const first = await core.listTimelines.execute({ accountId, limit: 2 });
    const second = await core.listTimelines.execute({ accountId, limit: 2, after: first.next });

    expect([...first.timelines, ...second.timelines].map((timeline) => timeline.id)).toEqual([
      'primary',
      'tml_1',
      'tml_2',
      'tml_3',
    ]);
  });

  it(`caps the page size at ${MAX_PAGE_SIZE}`, async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await someTimelines(core, accountId, MAX_PAGE_SIZE + 5);

    const page = await core.listTimelines.execute({ accountId, limit: 1_000 });

    expect(MAX_PAGE_SIZE).toBe(200);
    expect(page.timelines).toHaveLength(MAX_PAGE_SIZE);
    expect(page.next).toEqual({ createdAt: page.timelines[199]?.createdAt, id: page.timelines[199]?.id });
  });

  it('shows at least one timeline per page, so a page never claims the list is over too early', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await someTimelines(core, accountId, 2);

    const page = await core.listTimelines.execute({ accountId, limit: 0 });

    expect(page.timelines.map((timeline) => timeline.id)).toEqual(['primary']);
    expect(page.next).not.toBeNull();
  });

  it('shows each timeline with its status as of now', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await someTimelines(core, accountId, 1);
    core.clock.advanceMinutes(20);

    const page = await core.listTimelines.execute({ accountId });

    expect(page.timelines.map((timeline) => timeline.status)).toEqual(['open', 'expired']);
  });
});
