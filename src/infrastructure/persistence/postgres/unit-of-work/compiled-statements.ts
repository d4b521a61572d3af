// A unit of work's statement is compiled once per shape and kept: building and compiling it costs
// more than the statement's round trip for the usual units (an anchor, a travel). The shape is what
// decides the text; the values are read from the writes and gates of each run.
import { type Compiled, compileOnce } from '../kysely';
import { type Gates, gatedStatement, type Source, valueOf, type Write } from './gated-statement';

/** Shapes of statement compiled and kept; a shape beyond them (many items carried) is compiled each time. */
const KEPT_SHAPES = 500;
const kept = new Map<string, Compiled<Source>>();

/** The statement for these writes behind these gates: its text and its values for this run. */
export function compiledStatement(
  writes: readonly Write[],
  gates: Gates,
  trace: string | null,
): { readonly text: string; readonly values: unknown[] } {
  const shape = shapeOf(writes, gates);
  let compiled = kept.get(shape);
  if (!compiled) {
    compiled = compileOnce<Source>(gatedStatement(writes, gates));
    // A value built into the text would be kept with its shape and sent again with other writes.
    if (compiled.parameters.some((parameter) => !('slot' in parameter)))
      throw new Error('a write statement takes every value from its writes and gates');
    if (kept.size < KEPT_SHAPES) kept.set(shape, compiled);
  }
  return {
    text: compiled.text,
    values: compiled.parameters.map((parameter) =>
      'slot' in parameter ? valueOf(parameter.slot, writes, gates, trace) : parameter.constant,
    ),
  };
}

/** What decides the text: the gates, and each write's kind, table and columns (not their values). */
function shapeOf(writes: readonly Write[], { guard, claim }: Gates): string {
  const parts = writes.map((write) => {
    const where = Object.entries(write.where).map(([column, value]) => (value === null ? `${column}?` : column));
    return `${write.kind} ${write.table} ${where.join(',')} ${Object.keys(write.set).join(',')}`;
  });
  const guarded = guard ? `guard ${Object.keys(guard.set ?? {}).join(',')}` : '';
  return [`${claim ? 'claim' : ''}/${guarded}`, ...parts].join('\n');
}
