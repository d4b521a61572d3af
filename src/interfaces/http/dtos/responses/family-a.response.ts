import { Type } from 'class-transformer';
import { IsIn, IsString, Matches, ValidateNested } from 'class-validator';
import { ApiField } from '../../openapi/api-field';
import { IsDateTime } from '../../validation/decorators';
import { EXAMPLE_IDS, idOf, TIMELINE_ID } from './ids';
import { ItemResponse, VerdictResponse } from './resources.response';
import { EventScanResponse } from './family-c.response';

/** Family A answers: each with a human-readable `status`, as the spec shows. */

export class SetAnchorResponse {
  @Matches(idOf('anc')) @ApiField({ example: EXAMPLE_IDS.anchor }) anchor_id!: string;
  @IsString() @ApiField({ example: 'Anchor set at 2026-11-22T01:00:00Z.' }) status!: string;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:00:00Z' }) timestamp!: string;
  @Matches(TIMELINE_ID) @ApiField({ example: 'primary' }) timeline_id!: string;
}

export class PauseTimeResponse {
  @IsString() @ApiField({ example: 'Time paused.' }) status!: string;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:00:00Z' }) paused_at!: string;
}

export class ResumeTimeResponse {
  @IsString() @ApiField({ example: 'Time resumed.' }) status!: string;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:00:00Z' }) current_time!: string;
}

export class ShiftTimeResponse {
  @IsString() @ApiField({ example: 'Time fast-forwarded by 2h.' }) status!: string;
  @IsDateTime() @ApiField({ example: '2026-11-22T03:00:00Z' }) new_time!: string;
}

export class MonitorEventsResponse extends EventScanResponse {
  @IsString() @ApiField({ example: '1 event(s) found.' }) status!: string;
}

export class ItemDetailsResponse {
  @IsString() @ApiField({ example: 'Moon rock' }) description!: string;
  @IsDateTime() @ApiField({ example: '1969-07-20T20:30:00Z' }) retrieved_at!: string;
}

export class RetrieveItemResponse {
  @Matches(idOf('itm')) @ApiField({ example: EXAMPLE_IDS.item }) item_id!: string;
  @IsIn(['Item retrieved.', 'Item already retrieved.']) @ApiField({ example: 'Item retrieved.' }) status!: string;
  @ValidateNested() @Type(() => ItemDetailsResponse) item_details!: ItemDetailsResponse;
  @ValidateNested() @Type(() => ItemResponse) item!: ItemResponse;
}

export class ReturnResponse {
  @IsString() @ApiField({ example: `Returned to anchor ${EXAMPLE_IDS.anchor}.` }) status!: string;
  @IsDateTime() @ApiField({ example: '2026-11-22T01:00:00Z' }) current_time!: string;
  @IsString() @ApiField({ example: 'Greenwich' }) location!: string;
  @Matches(TIMELINE_ID) @ApiField({ example: 'primary' }) timeline_id!: string;
  @Matches(idOf('trv')) @ApiField({ example: EXAMPLE_IDS.travel }) travel_id!: string;
}

export class CheckParadoxResponse extends VerdictResponse {
  @IsString() @ApiField({ example: 'Timeline is stable.' }) status!: string;
}
