import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsDateTime, IsDuration } from '../validation/decorators';
import { MAX_ID_LENGTH, MAX_NAME_LENGTH, MAX_TEXT_LENGTH } from './limits';

export class DurationDto {
  @IsDuration()
  duration!: string;
}

export class RetrieveItemDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT_LENGTH)
  item_description!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_NAME_LENGTH)
  location!: string;

  @IsDateTime()
  time!: string;
}

export class ReturnDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_ID_LENGTH)
  anchor_id!: string;
}
