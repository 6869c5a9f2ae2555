import type { Api, RequestOptions } from '../protocol/events.js';
import { protocolFor } from '../protocol/index.js';
import { buildHeaders, redactHeaders, redactSecrets, secretsOf } from '../transport/headers.js';
import type { Connection } from '../transport/http.js';
import { VERSION } from '../version.js';

/**
 * `--dry-run` (SPEC §2): the request exactly as it would go out — the same body builder and header
 * builder the transport uses — as JSON, with every credential masked. Nothing is sent.
 */
export function describeRequest(conn: Connection, api: Api, request: RequestOptions): string {
  const protocol = protocolFor(api);
  const secrets = secretsOf(conn);
  const described = {
    method: 'POST',
    url: conn.baseUrl + protocol.path,
    headers: redactHeaders(buildHeaders(conn, VERSION), secrets),
    body: protocol.buildRequest(request),
  };
  // A key pasted into -o or the prompt is masked too: the output is meant to be shared.
  return `${redactSecrets(JSON.stringify(described, null, 2), secrets)}\n`;
}
