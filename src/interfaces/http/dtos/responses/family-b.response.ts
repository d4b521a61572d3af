import { Type } from 'class-transformer';
import { IsArray, ValidateNested } from 'class-validator';
import { NextCursor } from './next-cursor';
import { TimelineResponse } from './resources.response';

/** GET /timelines: one page, oldest first. */
export class TimelinePageResponse {
  @IsArray() @ValidateNested({ each: true }) @Type(() => TimelineResponse) timelines!: TimelineResponse[];
  @NextCursor() next_cursor!: string | null;
}
