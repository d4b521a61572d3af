import type { MetadataStorage } from 'class-validator';

type Lookup = MetadataStorage['getTargetValidationMetadatas'];

const cached = new WeakSet<MetadataStorage>();

/**
 * Makes class-validator look up each class's rules once, not once per object validated.
 *
 * Why: `getTargetValidationMetadatas` walks every registered class (`instanceof` each) to find a
 * class's inherited rules, on every object it validates (typestack/class-validator#2686). A
 * 100-name paradox check validates 101 objects, so with this service's seventy-odd classes its
 * validation was about 750 µs of the event loop, a quarter of that the walk.
 *
 * Safe because a class's rules, its own and its ancestors', are all registered when its module
 * loads, before anything of it can be validated; a class defined later registers only its own. Each
 * argument tuple (schema, groups, `always`, strict groups) keeps its own answer, and class-validator
 * only reads the array it is given.
 */
export function cacheValidationMetadata(storage: MetadataStorage): void {
  // class-validator keeps one storage per global object; a module loaded twice must not wrap it twice.
  if (cached.has(storage)) return;
  cached.add(storage);
  const lookUp: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  const byTarget = new WeakMap<object, Map<string, ReturnType<Lookup>>>();
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    let answers = byTarget.get(target);
    if (!answers) byTarget.set(target, (answers = new Map()));
    const key = JSON.stringify([schema, always, strictGroups, groups ?? null]);
    let answer = answers.get(key);
    if (!answer) answers.set(key, (answer = lookUp(target, schema, always, strictGroups, groups)));
    return answer;
  };
}
