import { Type } from 'class-transformer';
import { IsArray, IsString, ValidateNested } from 'class-validator';
import { ApiField } from '../../openapi/api-field';
import { TimelineResponse } from './resources.response';

/** GET /timelines: one page, oldest first. */
export class TimelinePageResponse {
  @IsArray() @ValidateNested({ each: true }) @Type(() => TimelineResponse) timelines!: TimelineResponse[];
  @IsString()
  @ApiField({ example: null, nullable: true, description: 'Pass as `cursor` for the next page; `null` on the last.' })
  next_cursor!: string | null;
}
