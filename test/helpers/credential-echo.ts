import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * JSON string escaping the way PHP's json_encode and Python's json.dumps (ensure_ascii) write it:
 * `/` as `\/`, `"` and `\` escaped, everything outside ASCII as `\uXXXX`. A gateway written in those
 * languages echoes a credential in this form, which a search for the credential itself misses.
 */
export function escapeLikePhp(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\' || char === '/') out += `\\${char}`;
    else if (code < 0x20 || code > 0x7e) {
      // Outside the BMP: a surrogate pair, as JSON writes it.
      for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
    } else out += char;
  }
  return out;
}

export interface CredentialEcho {
  /** `http://127.0.0.1:port`: a gateway base URL (add `/v1`) or a proxy URL. */
  url: string;
  port: number;
  /** The request headers of every request it answered (values as Node reads them: Latin-1). */
  seen: IncomingMessage['headers'][];
  close(): Promise<void>;
}

/**
 * The worst neighbour a credential can have: a loopback HTTP server that answers every request — as a
 * gateway, or as a proxy asked to forward an absolute-form request — by quoting the credentials it was
 * sent (Authorization, x-api-key, Proxy-Authorization and the `user:password` inside a Basic value) in
 * every form it can: as they are, JSON-escaped PHP-style, and JSON-escaped twice (a JSON document
 * quoted inside a message). The request's `model` picks the shape of the answer:
 * - anything else: a 502 JSON error body;
 * - `stream-error`: a 200 event stream with one delta, then an `event: error` quoting them;
 * - `html`: a 502 HTML page with them in its title.
 */
export async function startCredentialEcho(): Promise<CredentialEcho> {
  const seen: IncomingMessage['headers'][] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push(req.headers);
      const credentials = credentialsIn(req.headers);
      const quoted = credentials.map((c) => `${c} | ${escapeLikePhp(c)}`).join(' ; ');
      // The message as JSON text written by hand: `quoted` escaped once more, so the raw body holds each
      // credential plain-escaped and doubly escaped, and the parsed message holds it plain and escaped.
      const errorJson = `{"error":{"message":"the upstream rejected ${escapeLikePhp(quoted)}","type":"proxy_error","detail":"{\\"seen\\":\\"${escapeLikePhp(escapeLikePhp(credentials.join(' ')))}\\"}"}}`;
      let model = '';
      try {
        model = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: unknown }).model ?? '');
      } catch {
        // not a chat request: the default answer
      }
      if (model === 'stream-error') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'two words' }, finish_reason: null }] })}\n\n`);
        res.write(`event: error\ndata: ${errorJson}\n\n`);
        return void res.end();
      }
      if (model === 'html') {
        res.writeHead(502, { 'content-type': 'text/html' });
        return void res.end(`<html><head><title>Bad gateway for ${credentials.join(' ')}</title></head><body>${quoted}</body></html>`);
      }
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(errorJson);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Each credential header's value, its token, and what a Basic token decodes to (`user:password`). */
function credentialsIn(headers: IncomingMessage['headers']): string[] {
  const out: string[] = [];
  for (const name of ['authorization', 'x-api-key', 'proxy-authorization']) {
    const value = headers[name];
    if (typeof value !== 'string') continue;
    out.push(value);
    const token = /^\S+\s+(\S+)$/.exec(value)?.[1];
    if (token) out.push(token);
    if (/^Basic\s/i.test(value) && token) out.push(Buffer.from(token, 'base64').toString('utf8'));
  }
  return out;
}
