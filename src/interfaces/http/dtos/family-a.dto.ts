import { IsDateTime, IsDuration } from '../validation/decorators';
import { Identifier, Required, Text } from '../validation/fields';
import { MAX_ID_LENGTH, MAX_NAME_LENGTH, MAX_TEXT_LENGTH } from './limits';

export class DurationDto {
  @Required()
  @IsDuration()
  duration!: string;
}

export class RetrieveItemDto {
  @Required()
  @Text(MAX_TEXT_LENGTH)
  item_description!: string;

  @Required()
  @Text(MAX_NAME_LENGTH)
  location!: string;

  @Required()
  @IsDateTime()
  time!: string;
}

export class ReturnDto {
  @Required()
  @Identifier(MAX_ID_LENGTH)
  anchor_id!: string;
}
