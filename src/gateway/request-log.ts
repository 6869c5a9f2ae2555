/**
 * The dev gateway's request log (SPEC §9, §20): what tests and scripts read back, bounded so that a
 * client posting large bodies in a loop cannot grow the gateway without end, and served with every
 * credential replaced by `[redacted]`.
 */
import type { RecordedRequest } from './types.js';

/** The newest requests kept; older ones are dropped first. */
export const REQUEST_LOG_MAX_ENTRIES = 1000;
/** Bodies kept in all (their size on the wire); a single body is at most the gateway's 32 MiB. */
export const REQUEST_LOG_MAX_BODY_BYTES = 64 * 1024 * 1024;

const REDACTED = '[redacted]';
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'x-api-key', 'cookie'];

export class RequestLog {
  /**
   * Arrival order. In-process users (tests) read it as it was sent, credentials included: they hold
   * the key already, and they check that a client sent it. Emptying it (`length = 0`) is allowed.
   */
  readonly entries: RecordedRequest[] = [];
  // Sizes by entry rather than a running total, so an array emptied from outside keeps the sum right.
  private readonly sizes = new WeakMap<RecordedRequest, number>();

  add(entry: RecordedRequest, bodyBytes: number): void {
    this.entries.push(entry);
    this.sizes.set(entry, bodyBytes);
    let total = 0;
    for (const e of this.entries) total += this.sizes.get(e) ?? 0;
    let drop = Math.max(0, this.entries.length - REQUEST_LOG_MAX_ENTRIES);
    for (let i = 0; i < drop; i++) total -= this.sizes.get(this.entries[i]) ?? 0;
    while (total > REQUEST_LOG_MAX_BODY_BYTES && drop < this.entries.length - 1) total -= this.sizes.get(this.entries[drop++]) ?? 0;
    if (drop > 0) this.entries.splice(0, drop);
  }

  clear(): number {
    const deleted = this.entries.length;
    this.entries.length = 0;
    return deleted;
  }

  /** What `GET /__gatechat/requests` serves: no character of any credential. */
  served(): RecordedRequest[] {
    return this.entries.map((r) => ({ ...r, headers: redactCredentials(r.headers) }));
  }
}

function redactCredentials(headers: RecordedRequest['headers']): RecordedRequest['headers'] {
  const out: RecordedRequest['headers'] = { ...headers };
  for (const name of CREDENTIAL_HEADERS) {
    const value = out[name];
    if (value === undefined) continue;
    // The scheme (Bearer, Basic) says which auth mode a client used; everything after it is the secret.
    const scheme = typeof value === 'string' && name.endsWith('authorization') ? /^([A-Za-z]+)\s/.exec(value) : null;
    out[name] = scheme ? `${scheme[1]} ${REDACTED}` : REDACTED;
  }
  return out;
}
