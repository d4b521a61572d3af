// A self-signed certificate made in the test's process with node:crypto, so that a TLS test needs no
// openssl program and no certificate file kept in the repository (one that would expire). Node makes
// keys and signs but writes no X.509: this encodes the few DER structures a certificate is.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIPv4 } from 'node:net';

export interface SelfSigned {
  /** PEM, to serve and to trust (`ca`). */
  readonly cert: string;
  readonly key: string;
}

/** A certificate for `names` (host names, or IPv4 addresses), valid from an hour ago for a day. */
export function selfSignedCertificate(names: readonly string[]): SelfSigned {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const subject = sequence(set(sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(names[0])))));
  const now = Date.now();
  const tbs = sequence(
    tlv(0xa0, integer(Buffer.from([2]))), // v3
    integer(randomBytes(8)),
    ecdsaWithSha256,
    subject,
    sequence(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, sequence(basicConstraintsCa(), subjectAltNames(names))),
  );
  const der = sequence(
    tbs,
    ecdsaWithSha256,
    tlv(0x03, Buffer.concat([Buffer.from([0]), sign('sha256', tbs, privateKey)])),
  );
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** CA:TRUE, as `openssl req -x509` makes it: the certificate is its own trust anchor. */
function basicConstraintsCa(): Buffer {
  const TRUE = tlv(0x01, Buffer.from([0xff]));
  return sequence(oid('2.5.29.19'), TRUE, tlv(0x04, sequence(TRUE)));
}

/** dNSName [2] for a name, iPAddress [7] for an IPv4 address. */
function subjectAltNames(names: readonly string[]): Buffer {
  const general = names.map((name) =>
    isIPv4(name) ? tlv(0x87, Buffer.from(name.split('.').map(Number))) : tlv(0x82, Buffer.from(name)),
  );
  return sequence(oid('2.5.29.17'), tlv(0x04, sequence(...general)));
}

function tlv(tag: number, content: Buffer): Buffer {
  const size = content.length;
  if (size < 0x80) return Buffer.concat([Buffer.from([tag, size]), content]);
  const bytes: number[] = [];
  for (let rest = size; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), content]);
}

const sequence = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));

/** A positive INTEGER: a leading 0 where the top bit would make it negative. */
const integer = (bytes: Buffer) => tlv(0x02, bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);

/** YYMMDDHHMMSSZ */
const utcTime = (at: Date) => tlv(0x17, Buffer.from(`${at.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`));

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const group = [arc % 128];
    for (let high = Math.floor(arc / 128); high > 0; high = Math.floor(high / 128)) group.unshift(0x80 | (high % 128));
    bytes.push(...group);
  }
  return tlv(0x06, Buffer.from(bytes));
}
