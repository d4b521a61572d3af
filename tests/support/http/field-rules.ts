import type { ClassConstructor } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import type { Route } from '../../../src/interfaces/http/route';

/** A value that breaks one rule of one field, and the message that must report it. */
export interface FieldFault {
  readonly label: string;
  readonly route: Route;
  readonly field: string;
  /** The route's example with the field replaced (`undefined`: left out). */
  readonly input: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/**
 * For every top-level field of every operation's input class, read from the class-validator
 * metadata the service validates with: one fault per rule that has a fixed first message
 * (required, type, blank, length). A field added later is covered without being listed.
 */
export function fieldFaults(routes: readonly Route[]): FieldFault[] {
  return routes.flatMap((route) => {
    const dto = route.body ?? route.query;
    const documented = route.docs?.example;
    if (!dto || !documented) return [];
    // The example names the path's parameters too (the document's examples come from it); they are no field.
    const inPath = new Set([...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]));
    const example = Object.fromEntries(Object.entries(documented).filter(([name]) => !inPath.has(name)));
    return [...rulesByField(dto)].flatMap(([field, rules]) =>
      faultsOf(field, rules).map(([what, value, message]) => ({
        label: `${route.method.toUpperCase()} ${route.path} ${field} ${what}`,
        route,
        field,
        input: { ...example, [field]: value },
        message: `${field} ${message}`,
      })),
    );
  });
}

interface Rules {
  readonly names: ReadonlySet<string>;
  readonly maxLength?: number;
}

function rulesByField(dto: ClassConstructor<object>): Map<string, Rules> {
  const fields = new Map<string, { names: Set<string>; maxLength?: number }>();
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    const rules = fields.get(meta.propertyName) ?? { names: new Set<string>() };
    const name = meta.type === 'isDefined' ? 'isDefined' : (meta.name ?? meta.type);
    if (meta.each) continue; // element rules are checked on the array's own cases
    rules.names.add(name);
    if (name === 'maxLength') rules.maxLength = Number(meta.constraints[0]);
    fields.set(meta.propertyName, rules);
  }
  return fields;
}

function faultsOf(field: string, rules: Rules): Array<[string, unknown, string]> {
  const faults: Array<[string, unknown, string]> = [];
  if (rules.names.has('isDefined')) faults.push(['missing', undefined, 'is required'], ['null', null, 'is required']);
  if (rules.names.has('isString'))
    faults.push(['a number', 12_345, 'must be a string'], ['an array', [field], 'must be a string']);
  if (rules.names.has('isArray')) faults.push(['a string', 'x', 'must be an array']);
  if (rules.names.has('isInt')) faults.push(['a word', 'many', 'must be a whole number']);
  if (rules.names.has('isNotBlank'))
    faults.push(
      ['blank', '   ', 'must not be empty or only white space'],
      ['white space of all kinds', ' \t\u00a0\u2003', 'must not be empty or only white space'],
    );
  if (rules.maxLength !== undefined)
    faults.push([
      `${rules.maxLength + 1} long`,
      'x'.repeat(rules.maxLength + 1),
      `must be shorter than or equal to ${rules.maxLength} characters`,
    ]);
  return faults;
}
