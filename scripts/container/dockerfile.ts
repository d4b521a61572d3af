// Reads a Dockerfile into stages of instructions, for the replay (replay.ts). It knows the
// instructions our Dockerfile uses and refuses any other, so the replay cannot skip a new step.

export type Command = { form: 'exec'; argv: string[] } | { form: 'shell'; script: string };

export type Instruction =
  | { kind: 'WORKDIR'; path: string }
  | { kind: 'COPY'; from: string | null; chown: string | null; sources: string[]; destination: string }
  | { kind: 'RUN'; script: string }
  | { kind: 'ENV'; variables: Record<string, string> }
  | { kind: 'LABEL'; labels: Record<string, string> }
  | { kind: 'VOLUME'; paths: string[] }
  | { kind: 'USER'; user: string }
  | { kind: 'EXPOSE'; port: number }
  | { kind: 'HEALTHCHECK'; command: Command }
  | { kind: 'CMD'; command: Command };

export interface Stage {
  readonly name: string;
  readonly image: string;
  readonly instructions: Instruction[];
}

export class DockerfileError extends Error {}

/** The file's logical lines: continuations joined, comments and blank lines dropped. */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    // Docker drops comment and empty lines even inside a continued instruction.
    if (line.startsWith('#') || line === '') continue;
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    lines.push((pending + line).trim());
    pending = '';
  }
  if (pending.trim() !== '') throw new DockerfileError('the last instruction ends with a line continuation');
  return lines;
}

/** Splits words the way a shell does for ENV: quotes group, backslash escapes. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: '"' | "'" | null = null;
  let inWord = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? '';
    if (quote) {
      if (char === quote) quote = null;
      else if (char === '\\' && quote === '"' && i + 1 < text.length) word += text[(i += 1)];
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (char === '\\' && i + 1 < text.length) {
      word += text[(i += 1)];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) throw new DockerfileError(`unterminated quote in: ${text}`);
  if (inWord) words.push(word);
  return words;
}

/** A non-empty JSON array of strings: the exec form of CMD and HEALTHCHECK, VOLUME's list. */
function jsonStrings(text: string): string[] {
  const list: unknown = JSON.parse(text);
  if (!Array.isArray(list) || list.length === 0 || !list.every((arg) => typeof arg === 'string')) {
    throw new DockerfileError(`not a JSON array of strings: ${text}`);
  }
  return list.map(String);
}

function parseCommand(text: string): Command {
  if (!text.startsWith('[')) return { form: 'shell', script: text };
  return { form: 'exec', argv: jsonStrings(text) };
}

/** Leading `--name=value` flags, each of which must be in `known`. */
function takeFlags(words: string[], known: readonly string[]): { flags: Map<string, string>; rest: string[] } {
  const flags = new Map<string, string>();
  let index = 0;
  for (; index < words.length && (words[index] ?? '').startsWith('--'); index += 1) {
    const match = /^--([a-z-]+)=(.*)$/.exec(words[index] ?? '');
    if (!match || !known.includes(match[1] ?? '')) throw new DockerfileError(`unknown flag ${words[index]}`);
    flags.set(match[1] ?? '', match[2] ?? '');
  }
  return { flags, rest: words.slice(index) };
}

/** ENV's and LABEL's `key=value` pairs (not the older `key value` form), without $references. */
function keyValuePairs(keyword: 'ENV' | 'LABEL', argument: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const word of shellWords(argument)) {
    const equals = word.indexOf('=');
    if (equals <= 0) throw new DockerfileError(`${keyword} takes key=value pairs, not: ${word}`);
    if (word.includes('$')) throw new DockerfileError(`${keyword} with a $reference is not replayed: ${word}`);
    pairs[word.slice(0, equals)] = word.slice(equals + 1);
  }
  return pairs;
}

/** VOLUME's paths, as a JSON array or words; absolute, so that they do not depend on WORKDIR. */
function parseVolume(argument: string): string[] {
  const paths = argument.startsWith('[') ? jsonStrings(argument) : argument.split(/\s+/);
  for (const each of paths) {
    if (!each.startsWith('/') || each.includes('$')) {
      throw new DockerfileError(`VOLUME takes absolute paths without $references, not: ${each}`);
    }
  }
  return paths;
}

function parseInstruction(keyword: string, argument: string): Instruction {
  switch (keyword) {
    case 'WORKDIR':
      return { kind: 'WORKDIR', path: argument };
    case 'COPY': {
      const { flags, rest } = takeFlags(argument.split(/\s+/), ['from', 'chown']);
      if (rest.length < 2 || rest.some((word) => /[*?[]/.test(word))) {
        throw new DockerfileError(`COPY needs plain sources and a destination: ${argument}`);
      }
      return {
        kind: 'COPY',
        from: flags.get('from') ?? null,
        chown: flags.get('chown') ?? null,
        sources: rest.slice(0, -1),
        destination: rest[rest.length - 1] ?? '',
      };
    }
    case 'RUN':
      if (argument.startsWith('[')) throw new DockerfileError('RUN in exec form is not replayed; use the shell form');
      return { kind: 'RUN', script: argument };
    case 'ENV':
      return { kind: 'ENV', variables: keyValuePairs('ENV', argument) };
    case 'LABEL':
      return { kind: 'LABEL', labels: keyValuePairs('LABEL', argument) };
    case 'VOLUME':
      return { kind: 'VOLUME', paths: parseVolume(argument) };
    case 'USER':
      return { kind: 'USER', user: argument };
    case 'EXPOSE': {
      const port = Number(argument);
      if (!Number.isInteger(port)) throw new DockerfileError(`EXPOSE takes one port number: ${argument}`);
      return { kind: 'EXPOSE', port };
    }
    case 'HEALTHCHECK': {
      const match = /^((?:--[a-z-]+=\S+\s+)*)CMD\s+(.+)$/.exec(argument);
      if (!match) throw new DockerfileError(`HEALTHCHECK [options] CMD <command> expected: ${argument}`);
      takeFlags((match[1] ?? '').trim().split(/\s+/).filter(Boolean), [
        'interval',
        'timeout',
        'start-period',
        'retries',
      ]);
      return { kind: 'HEALTHCHECK', command: parseCommand(match[2] ?? '') };
    }
    case 'CMD':
      return { kind: 'CMD', command: parseCommand(argument) };
    default:
      throw new DockerfileError(`the replay does not know ${keyword}; teach scripts/container/ what it does`);
  }
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const match = /^(\S+)\s+(.*)$/.exec(line);
    if (!match) throw new DockerfileError(`an instruction without argument: ${line}`);
    const keyword = (match[1] ?? '').toUpperCase();
    const argument = (match[2] ?? '').trim();
    if (keyword === 'FROM') {
      const from = /^(\S+)\s+AS\s+(\S+)$/i.exec(argument);
      if (!from) throw new DockerfileError(`FROM <image> AS <name> expected: ${argument}`);
      stages.push({ image: from[1] ?? '', name: from[2] ?? '', instructions: [] });
      continue;
    }
    const stage = stages[stages.length - 1];
    if (!stage) throw new DockerfileError(`${keyword} before the first FROM`);
    stage.instructions.push(parseInstruction(keyword, argument));
  }
  if (stages.length === 0) throw new DockerfileError('no FROM');
  return stages;
}
