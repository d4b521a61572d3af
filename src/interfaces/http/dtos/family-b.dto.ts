import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { MAX_PAGE_SIZE } from '../../../core/use-cases/timelines/list-timelines';
import { ExcludesProperties, IsDateTime, IsWindow } from '../validation/decorators';
import { Checks, Cursor, Identifier, Required, Text } from '../validation/fields';
import { FromDigits, Optional } from '../validation/optional';
import { MAX_ID_LENGTH, MAX_LIST_LENGTH, MAX_NAME_LENGTH, MAX_TEXT_LENGTH } from './limits';

export class CreateAnchorDto {
  /** Omitted: the account clock's current time. */
  @Optional()
  @IsDateTime()
  timestamp?: string;

  @Required()
  @Text(MAX_TEXT_LENGTH)
  description!: string;
}

export class CreateTimelineDto {
  @Required()
  @Text(MAX_NAME_LENGTH)
  name!: string;

  @Required()
  @IsDateTime()
  destination_time!: string;

  /** `<n> minutes`; 12 minutes when omitted. */
  @Optional()
  @IsWindow()
  window?: string;
}

export class TravelDto {
  @Required()
  @Identifier(MAX_ID_LENGTH)
  destination!: string;

  @Optional()
  @Checks(IsArray(), ArrayMaxSize(MAX_LIST_LENGTH), IsString({ each: true }), MaxLength(MAX_ID_LENGTH, { each: true }))
  items_transported?: string[];
}

export class RegisterItemDto {
  @Required()
  @Text(MAX_TEXT_LENGTH)
  description!: string;

  /** Omitted: the traveller's current location. */
  @Optional()
  @Text(MAX_NAME_LENGTH)
  location?: string;
}

/** Either an event change `{ event, time }` or an item change `{ item_id }`. */
export class ProposedChangeDto {
  @ValidateIf((change: ProposedChangeDto) => change.item_id === undefined || change.event !== undefined)
  @Required()
  @Text(MAX_TEXT_LENGTH)
  event?: string;

  @ValidateIf((change: ProposedChangeDto) => change.item_id === undefined || change.time !== undefined)
  @Required()
  @IsDateTime()
  time?: string;

  @ValidateIf((change: ProposedChangeDto) => change.item_id !== undefined)
  @ExcludesProperties(['event', 'time'], { message: 'a proposed change has either event and time, or item_id alone' })
  @Identifier(MAX_ID_LENGTH)
  item_id?: string;
}

export class ParadoxCheckDto {
  @Required()
  @Identifier(MAX_ID_LENGTH)
  timeline_id!: string;

  /** Omitted: the timeline is checked as it stands. */
  @Optional()
  @Checks(IsArray(), ArrayMaxSize(MAX_LIST_LENGTH), ValidateNested({ each: true }))
  @Type(() => ProposedChangeDto)
  proposed_changes?: ProposedChangeDto[];
}

export class ListTimelinesQueryDto {
  @Optional()
  @FromDigits()
  @Checks(IsInt({ message: 'limit must be a whole number' }), Min(1), Max(MAX_PAGE_SIZE))
  limit?: number;

  @Optional()
  @Cursor()
  cursor?: string;
}
