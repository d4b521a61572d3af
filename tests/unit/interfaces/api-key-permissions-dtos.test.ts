import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import { RESOURCES } from '../../../src/core/domain/api-key-permissions';
import { ApiKeyPermissionsDto, ApiKeyTermsDto } from '../../../src/interfaces/http/dtos/api-keys.dto';
import { ApiKeyPermissionsResponse } from '../../../src/interfaces/http/dtos/responses/api-keys.response';
import { validateInput } from '../../../src/interfaces/http/validation/validate-input';

/** The fields class-validator knows of a class, as the request's validation and the document read them. */
function fieldsOf(dto: new () => object): string[] {
  const names = getMetadataStorage()
    .getTargetValidationMetadatas(dto, '', true, false)
    .map((meta) => meta.propertyName);
  return [...new Set(names)].sort();
}

describe('the permissions of the API keys operations', () => {
  it('take and answer a level of every resource the core knows, and of nothing else', () => {
    expect(fieldsOf(ApiKeyPermissionsDto)).toEqual([...RESOURCES].sort());
    expect(fieldsOf(ApiKeyPermissionsResponse)).toEqual([...RESOURCES].sort());
  });

  it('refuse a name that is no resource and a level that is none of the three, naming them', () => {
    expect(() => validateInput(ApiKeyTermsDto, { permissions: { anchors: 'write', events: 'read' } })).not.toThrow();
    expect(() => validateInput(ApiKeyTermsDto, { permissions: { anchor: 'write', events: 'admin' } })).toThrow(
      expect.objectContaining({
        extensions: expect.objectContaining({
          errors: [
            { field: 'permissions.anchor', message: 'is not a known field' },
            { field: 'permissions.events', message: 'events must be one of none, read, write' },
          ],
        }),
      }),
    );
  });
});
