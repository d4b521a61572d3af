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
  return query.split('&').flatMap((pair) => {
    const [name = '', value = ''] = splitOnce(pair.replace(/\+/g, ' '));
    if (!isUtf8(bytesOf(name)))
      return [
        { field: '(query)', message: 'has a parameter name that is not valid UTF-8 once its %-escapes are decoded' },
      ];
    return isUtf8(bytesOf(value))
      ? []
      : [{ field: unescape(name), message: 'is not valid UTF-8 once its %-escapes are decoded' }];
  });
}

function splitOnce(pair: string): [string, string] {
  const at = pair.indexOf('=');
  return at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
}

/** The bytes a query component stands for: its %-escapes decoded, the rest as the request line carried it. */
function bytesOf(component: string): Buffer {
  const bytes = Buffer.from(component, 'latin1');
  const decoded: number[] = [];
  for (let at = 0; at < bytes.length; at += 1) {
    const escape = bytes[at] === 0x25 ? component.slice(at + 1, at + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(escape)) {
      decoded.push(Number.parseInt(escape, 16));
      at += 2;
    } else {
      decoded.push(bytes[at] ?? 0);
    }
  }
  return Buffer.from(decoded);
}
