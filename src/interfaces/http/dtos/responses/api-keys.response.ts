import { Type } from 'class-transformer';
import { IsArray, IsIn, IsString, Matches, ValidateNested } from 'class-validator';
import { ACCESS_LEVELS } from '../../../../core/domain/api-key-permissions';
import { ApiField } from '../../openapi/api-field';
import { IsDateTime } from '../../validation/decorators';
import { EXAMPLE_IDS, idOf } from './ids';
import { NextCursor } from './next-cursor';

const LEVEL = (example: string) => (target: object, property: string | symbol) => {
  ApiField({ example })(target, property);
  IsIn(ACCESS_LEVELS)(target, property);
};

/** A restricted key's level of every resource. */
export class ApiKeyPermissionsResponse {
  @LEVEL('none') clock!: string;
  @LEVEL('none') travels!: string;
  @LEVEL('write') anchors!: string;
  @LEVEL('read') timelines!: string;
  @LEVEL('none') items!: string;
  @LEVEL('read') events!: string;
  @LEVEL('none') paradoxes!: string;
  @LEVEL('none') webhooks!: string;
}

const PERMISSIONS = {
  example: {
    clock: 'none',
    travels: 'none',
    anchors: 'write',
    timelines: 'read',
    items: 'none',
    events: 'read',
    paradoxes: 'none',
    webhooks: 'none',
  },
  nullable: true,
  description: "A restricted key's level of each resource; `null` for a full key, which may do everything.",
};

/** A key as the listing and a change answer it: never its secret. */
export class ApiKeyResponse {
  @Matches(idOf('key')) @ApiField({ example: EXAMPLE_IDS.apiKey }) id!: string;
  @IsString() @ApiField({ example: 'Status widget', nullable: true }) name!: string | null;
  @Matches(/^tn[sr]_/)
  @ApiField({ example: 'tnr_Yq2Lm8Vb', description: 'Its first characters, to recognise it; not enough to use it.' })
  prefix!: string;
  @ValidateNested() @Type(() => ApiKeyPermissionsResponse) @ApiField(PERMISSIONS) permissions!: object | null;
  @IsDateTime() @ApiField({ example: '2026-11-29T14:00:00Z' }) created_at!: string;
  @IsDateTime()
  @ApiField({ example: '2026-11-29T15:12:00Z', nullable: true, description: 'To the minute; `null` if never used.' })
  last_used_at!: string | null;
  @IsDateTime()
  @ApiField({
    example: null,
    nullable: true,
    description: "Only the try-it console's key of a browser session expires, with the session; `null` otherwise.",
  })
  expires_at!: string | null;
}

/** The key just made, with the whole key: shown only this once. */
export class NewApiKeyResponse {
  @Matches(idOf('key')) @ApiField({ example: EXAMPLE_IDS.apiKey }) id!: string;
  @IsString() @ApiField({ example: 'Status widget', nullable: true }) name!: string | null;
  @Matches(/^tn[sr]_[A-Za-z0-9_-]{43}$/)
  @ApiField({
    example: 'tnr_Yq2Lm8Vb4hY9v8kQ1x7TzL5nR6sW3eD2fG4hJ8kL0Mx',
    description: 'Shown only this once: keep it. `tns_` for a full key, `tnr_` for a restricted one.',
  })
  api_key!: string;
  @ValidateNested() @Type(() => ApiKeyPermissionsResponse) @ApiField(PERMISSIONS) permissions!: object | null;
  @IsDateTime() @ApiField({ example: '2026-11-29T14:00:00Z' }) created_at!: string;
}

/** GET /v1/api-keys: one page, oldest first. */
export class ApiKeyPageResponse {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ApiKeyResponse)
  api_keys!: ApiKeyResponse[];
  @NextCursor() next_cursor!: string | null;
}
