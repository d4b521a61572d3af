import { isUtf8 } from 'node:buffer';
import { unescape } from 'node:querystring';
import { Problem, type FieldError } from '../problem';
import type { RequestStep } from '../request-step';

/**
 * A query string's %-escapes must decode to UTF-8. The query parser turns a stray byte (`%FF`) into
 * U+FFFD, which would be stored or matched as if the client had sent it: refuse it, naming the parameter.
 */
export const utf8Query: RequestStep = (req) => {
  const start = req.originalUrl.indexOf('?');
  if (start < 0) return;
  const faults = invalidParameters(req.originalUrl.slice(start + 1));
  if (faults.length > 0) throw Problem.validation(faults);
};

function invalidParameters(query: string): FieldError[] {
  // A '+' stands for a space: ASCII either way, so it is read as it stands.
  return query.split('&').flatMap((pair) => {
    const [name = '', value = ''] = splitOnce(pair);
    if (!isUtf8(bytesOf(name)))
      return [
        { field: '(query)', message: 'has a parameter name that is not valid UTF-8 once its %-escapes are decoded' },
      ];
    return isUtf8(bytesOf(value))
      ? []
      : [{ field: unescape(name.replace(/\+/g, ' ')), message: 'is not valid UTF-8 once its %-escapes are decoded' }];
  });
}

function splitOnce(pair: string): [string, string] {
  const at = pair.indexOf('=');
  return at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
}

/**
 * The bytes a query component stands for: its %-escapes decoded, the rest as the request line
 * carried it (one byte a character). Written into one Buffer from Node's pool: every request with a
 * query runs this for each parameter.
 */
function bytesOf(component: string): Buffer {
  const bytes = Buffer.allocUnsafe(component.length);
  let length = 0;
  for (let at = 0; at < component.length; at += 1) {
    const code = component.charCodeAt(at);
    const escaped = code === PERCENT ? hexByte(component, at + 1) : -1;
    if (escaped >= 0) at += 2;
    // A Uint8Array keeps a character's low byte, as the latin1 reading of the request line does.
    bytes[length] = escaped >= 0 ? escaped : code;
    length += 1;
  }
  return bytes.subarray(0, length);
}

const PERCENT = 0x25;

/** The byte two hex digits at `at` write, or -1 where they are not two hex digits. */
function hexByte(text: string, at: number): number {
  const high = hexDigit(text.charCodeAt(at));
  const low = hexDigit(text.charCodeAt(at + 1));
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

function hexDigit(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}
