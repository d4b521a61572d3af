import type { Principal } from '../../../core/use-cases/accounts/authenticate-api-key';
import type { TravelToMoment } from '../../../core/use-cases/travels/travel-to-moment';
import type { TravelToMomentDto } from '../dtos/shared.dto';
import { presentArrival } from '../presenters/resources';
import type { HttpResponse } from '../route';
import { toInstant } from '../validation/to-instant';

/** Travel to a moment on the current timeline: what A's POST /v1/travel and C's POST /api/v1/travel both answer. */
export function travelToMomentHandler(travelToMoment: TravelToMoment) {
  return async ({ body }: { readonly body: TravelToMomentDto }, { accountId }: Principal): Promise<HttpResponse> => {
    const { travel, traveller } = await travelToMoment.execute({
      accountId,
      destinationTime: toInstant(body.destination_time),
      location: body.location,
    });
    return { status: 200, body: presentArrival(travel, traveller.location) };
  };
}
