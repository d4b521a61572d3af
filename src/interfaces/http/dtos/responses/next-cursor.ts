import { IsString } from 'class-validator';
import { ApiField } from '../../openapi/api-field';

/** The `next_cursor` of a paged answer: every listing pages alike, so one field says it for all. */
export function NextCursor(): PropertyDecorator {
  const documented = ApiField({
    example: null,
    nullable: true,
    description: 'Pass as `cursor` for the next page; `null` on the last.',
  });
  const typed = IsString();
  // In the order of `@IsString() @ApiField(...)` stacked on the field, which applies the lower first.
  return (target, property) => {
    documented(target, property);
    typed(target, property);
  };
}
