import { Type } from 'class-transformer';
import { IsArray, IsInt, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ApiField } from '../../openapi/api-field';

export class FieldErrorResponse {
  @IsString()
  @ApiField({ example: 'destination_time', description: 'The field at fault, as a path (`proposed_changes[1].time`).' })
  field!: string;
  @IsString()
  @ApiField({
    example:
      'destination_time must be an ISO 8601 date-time in UTC between years 0001 and 9999, like 2024-05-01T12:00:00Z',
  })
  message!: string;
}

/** RFC 9457 problem (problem.ts): the one shape of every failure. Some codes add members (docs/errors.md). */
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
  @IsString()
  @ApiField({
    example: '3f1c2a9e-7b4d-4e8a-9c61-2d5f0b8e4a17',
    description:
      'The `X-Request-Id` of the request that produced this answer (a replay under an `Idempotency-Key` keeps the ' +
      'first one); quote it when you report a problem.',
  })
  request_id!: string;
}
