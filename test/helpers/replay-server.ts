/**
 * Serves recorded gateway responses byte for byte over loopback HTTP, optionally re-chunked at
 * seeded random boundaries or converted to CRLF, so the built binary can be run against every
 * recording in ../shared/fixtures/recorded/.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as tick } from 'node:timers/promises';
import type { RecordedRequest } from '../../src/gateway/types.js';

export type { RecordedRequest } from '../../src/gateway/types.js';
import { chunkSizes, toCrlf } from './fixtures.js';

export interface ReplayFixture {
  /** Absolute path of the recording. */
  file: string;
  /** HTTP status to answer with (default 200). */
  status?: number;
  /** Write the body in random pieces of 1..maxChunk bytes (seeded, so a failure reproduces). */
  chunking?: { seed: number; maxChunk: number };
  /** Convert LF to CRLF before sending (ignored for .gz bodies, which are sent as recorded). */
  crlf?: boolean;
}

export interface ReplayServer {
  url: string;
  /** Answer the next request, and every one after it until the next serve(), with this recording. */
  serve(fixture: ReplayFixture): void;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

interface Prepared {
  body: Buffer;
  headers: Record<string, string>;
}

export function prepareFixture(fixture: ReplayFixture): Prepared {
  let body: Buffer = readFileSync(fixture.file);
  if (fixture.file.endsWith('.gz')) {
    return { body, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'content-encoding': 'gzip' } };
  }
  if (fixture.crlf) body = toCrlf(body);
  if (fixture.file.endsWith('.sse')) return { body, headers: { 'content-type': 'text/event-stream; charset=utf-8' } };
  if (fixture.file.endsWith('.json')) return { body, headers: { 'content-type': 'application/json', 'content-length': String(body.length) } };
  return { body, headers: { 'content-type': 'application/octet-stream', 'content-length': String(body.length) } };
}

async function send(res: ServerResponse, fixture: ReplayFixture): Promise<void> {
  const { body, headers } = prepareFixture(fixture);
  res.writeHead(fixture.status ?? 200, headers);
  if (!fixture.chunking) {
    res.end(body);
    return;
  }
  res.flushHeaders();
  let at = 0;
  for (const size of chunkSizes(body.length, fixture.chunking.seed, fixture.chunking.maxChunk)) {
    if (res.destroyed) return;
    res.write(body.subarray(at, at + size));
    at += size;
    // One event-loop turn between writes, so the pieces reach the client as separate reads.
    await tick();
  }
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startReplayServer(): Promise<ReplayServer> {
  const requests: RecordedRequest[] = [];
  let current: ReplayFixture | null = null;
  const server = createServer(async (req, res) => {
    const text = await readBody(req);
    let body: unknown = text === '' ? null : text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      // recorded as the raw text
    }
    const model = body && typeof body === 'object' && typeof (body as { model?: unknown }).model === 'string' ? (body as { model: string }).model : null;
    requests.push({ method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0], headers: { ...req.headers }, body, model });
    if (!current) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'replay server: no fixture to serve (call serve() first)', type: 'server_error', param: null, code: null } }));
      return;
    }
    send(res, current).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    serve(fixture) {
      current = fixture;
    },
    requests,
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
