import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ApiField } from '../../openapi/api-field';
import { DATE_TIME_HINT } from '../../validation/decorators';

export class FieldErrorResponse {
  @IsString()
  @ApiField({ example: 'destination_time', description: 'The field at fault, as a path (`proposed_changes[1].time`).' })
  field!: string;
  @IsString()
  @ApiField({
    example: `destination_time must be ${DATE_TIME_HINT}`,
  })
  message!: string;
}

/** Which codes carry a member (docs/errors.md lists them too). */
const MEMBER_OF = (...codes: string[]): string => `With ${codes.map((code) => `\`${code}\``).join(', ')}.`;

/**
 * RFC 9457 problem (problem.ts): the one shape of every failure. Some codes add members, each
 * declared here; a client ignores one it does not know, as RFC 9457 asks (docs/errors.md).
 */
@JSONSchema({ additionalProperties: true, description: 'RFC 9457 problem details; branch on `code`.' })
export class ProblemResponse {
  @Matches(/^\/problems\/[a-z_]+$/) @ApiField({ example: '/problems/validation_failed' }) type!: string;
  @IsString() @ApiField({ example: 'Bad Request' }) title!: string;
  @IsInt() @ApiField({ example: 400 }) status!: number;
  @IsString()
  @ApiField({ example: 'The request is invalid: check destination_time.', description: 'For people; may be reworded.' })
  detail!: string;
  @Matches(/^[a-z_]+$/)
  @ApiField({ example: 'validation_failed', description: 'Stable and machine-readable.' })
  code!: string;
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FieldErrorResponse)
  @ApiField({
    example: [{ field: 'destination_time', message: 'destination_time must be an ISO 8601 date-time' }],
    description: 'validation_failed only.',
  })
  errors?: FieldErrorResponse[];
  @IsOptional()
  @IsString()
  @ApiField({
    example: 'tml_7d1e0c5a9b3f4e21a8c6d2f0b4e9a713',
    description: MEMBER_OF(
      'timeline_not_found',
      'timeline_window_expired',
      'timeline_closed',
      'items_stranded',
      'unknown_event',
    ),
  })
  timeline_id?: string;
  @IsOptional()
  @IsString()
  @ApiField({ example: 'anc_5c0b1f9e2d7a4c3b8e6f1a0d9c2b7e45', description: MEMBER_OF('anchor_not_found') })
  anchor_id?: string;
  @IsOptional()
  @IsString()
  @ApiField({ example: 'evt_2b8e6f1a0d9c4b7e45c0b1f9e2d7a4c3', description: MEMBER_OF('event_not_found') })
  event_id?: string;
  @IsOptional()
  @IsString()
  @ApiField({ example: 'tml_unknown', description: MEMBER_OF('destination_not_found') })
  destination?: string;
  @IsOptional()
  @IsString()
  @ApiField({ example: 'tml_7d1e0c5a9b3f4e21a8c6d2f0b4e9a713', description: MEMBER_OF('journey_in_progress') })
  current_timeline_id?: string;
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @ApiField({
    example: ['itm_3b241101e2bb42558caf4136c566a962'],
    description: MEMBER_OF('unknown_items', 'items_already_home', 'items_not_on_journey'),
  })
  item_ids?: string[];
  @IsOptional()
  @IsString()
  @ApiField({ example: 'Moon landing', description: MEMBER_OF('unknown_event') })
  significant_event?: string;
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @ApiField({ example: ['<n>m', '<n>h', '<n>d'], description: MEMBER_OF('invalid_duration') })
  accepted_forms?: string[];
  @IsOptional()
  @IsInt()
  @ApiField({
    example: 20,
    description: MEMBER_OF(
      'too_many_requests_in_flight',
      'too_many_streams',
      'stream_capacity_reached',
      'too_many_api_keys',
      'too_many_webhook_endpoints',
    ),
  })
  limit?: number;
  @IsOptional()
  @IsInt()
  @ApiField({ example: 60, description: MEMBER_OF('too_many_failed_attempts') })
  retry_after_seconds?: number;
  @IsOptional()
  @IsInt()
  @ApiField({
    example: 200,
    description: MEMBER_OF('idempotency_answer_not_kept') + ' The status of the answer not kept.',
  })
  first_status?: number;
  @IsOptional()
  @IsIn(['too_long', 'quota_reached'])
  @ApiField({
    example: 'too_long',
    description:
      MEMBER_OF('idempotency_answer_not_kept') + ' Why it was not kept: longer than 64 KiB, or past the hourly quota.',
  })
  not_kept_because?: string;
  @IsOptional()
  @IsIn(['keys', 'kept_bytes'])
  @ApiField({
    example: 'keys',
    description:
      MEMBER_OF('idempotency_quota_exceeded') +
      " Which of the account's hourly bounds is spent: its keyed requests, or its kept answers' bytes.",
  })
  quota?: string;
  @IsOptional()
  @IsString()
  @ApiField({
    example: 'key_5c0b1f9e2d7a4c3b',
    description:
      MEMBER_OF('api_key_not_found', 'console_key_not_rollable', 'api_key_not_restricted', 'insufficient_permissions') +
      ' For insufficient_permissions, the id of the key the request was sent with.',
  })
  key_id?: string;
  @IsOptional()
  @Matches(/^[a-z_]+:(read|write|manage)$/)
  @ApiField({
    example: 'anchors:write',
    description:
      MEMBER_OF('insufficient_permissions') +
      ' The permission the operation needs and the key lacks, as the operation declares it in `security`.',
  })
  required_permission?: string;
  @IsOptional()
  @IsString()
  @ApiField({
    example: 'whk_2c8d4e6f0a1b4c3d9e8f7a6b5c4d3e2f',
    description: MEMBER_OF('webhook_endpoint_not_found', 'webhook_endpoint_disabled'),
  })
  endpoint_id?: string;
  @IsOptional()
  @IsString()
  @ApiField({ example: 'msg_8e1f3a5c7b9d4f6e8a0c2e4b6d8f0a1c', description: MEMBER_OF('webhook_message_not_found') })
  message_id?: string;
  @IsOptional()
  @IsIn(['address_not_allowed', 'dns'])
  @ApiField({
    example: 'address_not_allowed',
    description:
      MEMBER_OF('webhook_url_not_allowed') +
      ' Why: the host is or resolves to an address deliveries may not reach, or it resolves to none.',
  })
  reason?: string;
  @IsString()
  @ApiField({
    example: '3f1c2a9e-7b4d-4e8a-9c61-2d5f0b8e4a17',
    description:
      'The `X-Request-Id` of the request answered (a replay under an `Idempotency-Key` too: the replaying ' +
      "request's); quote it when you report a problem.",
  })
  request_id!: string;
}
