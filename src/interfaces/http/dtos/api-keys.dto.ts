import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, Max, Min, ValidateNested } from 'class-validator';
import { API_KEY_NAME_MAX_LENGTH } from '../../../core/domain/account';
import { ACCESS_LEVELS, type AccessLevel } from '../../../core/domain/api-key-permissions';
import { MAX_API_KEY_PAGE_SIZE } from '../../../core/use-cases/api-keys/list-api-keys';
import { Checks, Cursor, Text } from '../validation/fields';
import { FromDigits, Optional } from '../validation/optional';

const LEVEL = () => IsIn(ACCESS_LEVELS, { message: `$property must be one of ${ACCESS_LEVELS.join(', ')}` });

/**
 * A restricted key's level by resource; a resource left out is `none`. A name that is no resource
 * is refused as an unknown field (`permissions.<name>`). The fields are the resources of
 * api-key-permissions.ts, which a test holds this class to.
 */
export class ApiKeyPermissionsDto {
  @Optional() @LEVEL() clock?: AccessLevel;
  @Optional() @LEVEL() travels?: AccessLevel;
  @Optional() @LEVEL() anchors?: AccessLevel;
  @Optional() @LEVEL() timelines?: AccessLevel;
  @Optional() @LEVEL() items?: AccessLevel;
  @Optional() @LEVEL() events?: AccessLevel;
  @Optional() @LEVEL() paradoxes?: AccessLevel;
  @Optional() @LEVEL() webhooks?: AccessLevel;
}

/** What a key is: its label, and a restricted key's permissions. Creating and changing a key take the same. */
export class ApiKeyTermsDto {
  /** To tell keys apart; omitted: none (created), unchanged (changed). */
  @Optional()
  @Text(API_KEY_NAME_MAX_LENGTH)
  name?: string;

  /**
   * A restricted key's level by resource, `none` for a resource left out. Omitted: a full key
   * (created), unchanged (changed).
   */
  @Optional()
  @Checks(IsObject({ message: '$property must be an object of levels by resource' }), ValidateNested())
  @Type(() => ApiKeyPermissionsDto)
  permissions?: ApiKeyPermissionsDto;
}

export class ApiKeyPageQueryDto {
  @Optional()
  @FromDigits()
  @Checks(IsInt({ message: 'limit must be a whole number' }), Min(1), Max(MAX_API_KEY_PAGE_SIZE))
  limit?: number;

  @Optional()
  @Cursor()
  cursor?: string;
}
