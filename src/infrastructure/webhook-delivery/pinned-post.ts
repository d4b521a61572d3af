import { Agent as HttpAgent, type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

export interface Agents {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
}

export interface PinnedPost {
  readonly url: URL;
  /** Addresses the destination check allowed: the connection goes to one of these and nowhere else. */
  readonly addresses: readonly string[];
  readonly headers: OutgoingHttpHeaders;
  readonly body: Buffer;
  readonly deadline: AbortSignal;
}

/**
 * POSTs `body` to the URL over a connection to a checked address, and resolves with the answer
 * once its head has arrived. Node's client follows no redirect, which is the specification's rule.
 */
export function postPinned(post: PinnedPost, agents: Agents): Promise<IncomingMessage> {
  const { url } = post;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const secure = url.protocol === 'https:';
  const request = (secure ? httpsRequest : httpRequest)({
    method: 'POST',
    host,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    auth: url.username === '' ? undefined : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
    headers: post.headers,
    agent: secure ? agents.https : agents.http,
    lookup: pinnedLookup(post.addresses),
    // The certificate is verified against the URL's name, whichever checked address was reached.
    servername: isIP(host) === 0 ? host : undefined,
    signal: post.deadline,
  });
  return new Promise((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
    request.end(post.body);
  });
}

/**
 * A resolver that answers the checked addresses and asks no one: resolving the name again here
 * could get another answer (DNS rebinding). All of them when Node asks for all, as it does to try
 * each address in turn (autoSelectFamily); otherwise the first.
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    // Node expects the answer later, as a resolver gives it, not within its call.
    process.nextTick(() => {
      if (options.all) callback(null, entries);
      else callback(null, entries[0].address, entries[0].family);
    });
  };
}
