import type { Anchor } from '../../../src/core/domain/anchor';
import type { Timeline } from '../../../src/core/domain/timeline';
import type { TestCore } from './test-core';

export const DESTINATION_TIME = new Date('1969-07-20T20:17:40Z');

/**
 * The spec's typical order up to the traveller being away: an anchor set in the present, a
 * timeline created and travelled to.
 */
export async function aJourneyUnderWay(
  core: TestCore,
  accountId: string,
  timeline: { name?: string; destinationTime?: Date; windowMinutes?: number } = {},
): Promise<{ anchor: Anchor; timeline: Timeline }> {
  const anchor = await core.createAnchor.execute({ accountId, description: 'Before leaving' });
  const created = await core.createTimeline.execute({
    accountId,
    name: timeline.name ?? 'Moon landing',
    destinationTime: timeline.destinationTime ?? DESTINATION_TIME,
    ...(timeline.windowMinutes === undefined ? {} : { windowMinutes: timeline.windowMinutes }),
  });
  await core.travel.execute({ accountId, destination: created.id });
  return { anchor, timeline: created };
}
