import 'reflect-metadata';
import { IsInt, IsString, MetadataStorage, getMetadataStorage } from 'class-validator';
import { validateInput } from '../../../src/interfaces/http/validation/validate-input';
import { cacheValidationMetadata } from '../../../src/interfaces/http/validation/validation-metadata-cache';
import { Problem } from '../../../src/interfaces/http/problem';

class Named {
  @IsString()
  name!: string;
}

class Counted extends Named {
  @IsInt()
  count!: number;
}

/** The field errors a 400 names, or none when the input is valid. */
function faultsOf(input: object): unknown {
  try {
    validateInput(Counted, input);
    return [];
  } catch (error) {
    if (error instanceof Problem) return error.extensions.errors;
    throw error;
  }
}

describe('class-validator metadata looked up once per class', () => {
  it('still finds a class its inherited rules, validated again and again', () => {
    for (let round = 0; round < 3; round++) {
      const faults = faultsOf({ name: 7, count: 'many' });
      expect(faults).toHaveLength(2);
      expect(faults).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'name' }),
          expect.objectContaining({ field: 'count' }),
        ]),
      );
      expect(faultsOf({ name: 'seven', count: 7 })).toEqual([]);
    }
  });

  it('asks the storage once per class and arguments, and again for other arguments', () => {
    const storage = new MetadataStorage();
    const lookUp = jest.spyOn(storage, 'getTargetValidationMetadatas');
    cacheValidationMetadata(storage);
    const first = storage.getTargetValidationMetadatas(Counted, '', false, false);
    expect(storage.getTargetValidationMetadatas(Counted, '', false, false)).toBe(first);
    expect(lookUp).toHaveBeenCalledTimes(1);
    storage.getTargetValidationMetadatas(Counted, '', false, false, ['admin']);
    storage.getTargetValidationMetadatas(Named, '', false, false);
    expect(lookUp).toHaveBeenCalledTimes(3);
  });

  it('wraps a storage once however often it is asked to', () => {
    const storage = new MetadataStorage();
    const lookUp = jest.spyOn(storage, 'getTargetValidationMetadatas');
    cacheValidationMetadata(storage);
    const wrapped = storage.getTargetValidationMetadatas;
    cacheValidationMetadata(storage);
    expect(storage.getTargetValidationMetadatas).toBe(wrapped);
    storage.getTargetValidationMetadatas(Named, '', true, false);
    expect(lookUp).toHaveBeenCalledTimes(1);
  });

  it('is what the service validates with', () => {
    const storage = getMetadataStorage();
    expect(storage.getTargetValidationMetadatas(Counted, '', true, false)).toBe(
      storage.getTargetValidationMetadatas(Counted, '', true, false),
    );
  });
});
