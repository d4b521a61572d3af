import {
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { EVENT_TYPE_FAULTS, MAX_WEBHOOK_URL_LENGTH, WEBHOOK_EVENT_TYPES } from '../../../core/domain/webhook-endpoint';
import { MAX_ENDPOINT_PAGE_SIZE } from '../../../core/use-cases/webhook-endpoints/list-webhook-endpoints';
import { IsWebhookUrl } from '../validation/decorators';
import { Checks, Cursor, Required, Text } from '../validation/fields';
import { FromDigits, Optional } from '../validation/optional';
import { MAX_TEXT_LENGTH } from './limits';

export class CreateWebhookEndpointDto {
  /** https, or http too with WEBHOOK_ALLOW_PRIVATE_URLS=on. */
  @Required()
  @Checks(
    IsString(),
    IsNotEmpty({ message: '$property must not be empty' }),
    MaxLength(MAX_WEBHOOK_URL_LENGTH),
    IsWebhookUrl(),
  )
  url!: string;

  @Required()
  @Checks(
    IsArray(),
    ArrayNotEmpty({ message: `$property ${EVENT_TYPE_FAULTS.empty}` }),
    IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `$property ${EVENT_TYPE_FAULTS.unknown}` }),
    ArrayUnique({ message: `$property ${EVENT_TYPE_FAULTS.repeated}` }),
  )
  event_types!: string[];

  /** To tell endpoints apart; omitted: none. */
  @Optional()
  @Text(MAX_TEXT_LENGTH)
  description?: string;
}

/** A page of the endpoints, or of an endpoint's deliveries: both listings page alike. */
export class WebhookPageQueryDto {
  @Optional()
  @FromDigits()
  @Checks(IsInt({ message: 'limit must be a whole number' }), Min(1), Max(MAX_ENDPOINT_PAGE_SIZE))
  limit?: number;

  @Optional()
  @Cursor()
  cursor?: string;
}
