// The replay server must deliver recordings byte for byte, whatever the chunking or line endings.
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkSizes, fixturesDir } from '../helpers/fixtures.js';
import { startReplayServer } from '../helpers/replay-server.js';

let server: Awaited<ReturnType<typeof startReplayServer>>;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(async () => {
  await server.close();
});

const sse = join(fixturesDir, 'openai-chat/azure-deepseek-v4-pro-explicit-nulls-emoji.sse');
const small = join(fixturesDir, 'anthropic-messages/anthropic-sonnet-4.5-text.sse');
const gz = join(fixturesDir, 'anthropic-messages/anthropic-haiku-4.5-tool-use-empty-input.sse.gz');

async function readBytes(res: Response): Promise<{ bytes: Buffer; reads: number }> {
  const parts: Buffer[] = [];
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(Buffer.from(value));
  }
  return { bytes: Buffer.concat(parts), reads: parts.length };
}

function rawGet(url: string): Promise<{ headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
    }).on('error', reject);
  });
}

describe('replay server', () => {
  it('serves a recording whole, with its content type, on any path; records the request', async () => {
    server.serve({ file: sse });
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'recorded' }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect((await readBytes(res)).bytes.equals(readFileSync(sse))).toBe(true);
    expect(server.requests.at(-1)).toMatchObject({ method: 'POST', path: '/v1/chat/completions', model: 'recorded' });
  });

  it('random chunking: many separate pieces that reassemble to identical bytes', async () => {
    server.serve({ file: sse, chunking: { seed: 7, maxChunk: 64 } });
    const { bytes, reads } = await readBytes(await fetch(`${server.url}/anything`));
    expect(bytes.equals(readFileSync(sse))).toBe(true);
    expect(reads).toBeGreaterThan(50);
  });

  it('chunk sizes are seeded: same seed, same split; 1..maxChunk bytes', () => {
    const a = chunkSizes(1000, 3, 7);
    expect(chunkSizes(1000, 3, 7)).toEqual(a);
    expect(chunkSizes(1000, 4, 7)).not.toEqual(a);
    expect(a.reduce((n, s) => n + s, 0)).toBe(1000);
    expect(Math.max(...a)).toBeLessThanOrEqual(7);
    expect(Math.min(...a)).toBeGreaterThanOrEqual(1);
  });

  it('CRLF: every LF becomes CRLF, nothing else changes', async () => {
    for (const file of [sse, small]) {
      server.serve({ file, crlf: true, chunking: file === small ? { seed: 1, maxChunk: 3 } : undefined });
      const text = (await readBytes(await fetch(`${server.url}/v1/messages`))).bytes.toString('utf8');
      expect(text).not.toMatch(/[^\r]\n/);
      expect(text.replace(/\r\n/g, '\n')).toBe(readFileSync(file, 'utf8'));
    }
  });

  it('.sse.gz goes out as recorded, with Content-Encoding: gzip', async () => {
    server.serve({ file: gz, chunking: { seed: 2, maxChunk: 16 } });
    const raw = await rawGet(`${server.url}/v1/messages`);
    expect(raw.headers['content-encoding']).toBe('gzip');
    expect(raw.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(raw.body.equals(readFileSync(gz))).toBe(true);
    server.serve({ file: gz, crlf: true });
    const decoded = await (await fetch(`${server.url}/v1/messages`)).text();
    expect(decoded).toBe(readFileSync(gz.replace(/\.gz$/, ''), 'utf8'));
  });

  it('JSON error recordings with their status', async () => {
    const file = join(fixturesDir, 'openai-chat/groq-error-404-model-not-found.json');
    server.serve({ file, status: 404 });
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe(readFileSync(file, 'utf8'));
    // the same fixture keeps answering until the next serve() (retries see it too)
    expect((await fetch(`${server.url}/again`)).status).toBe(404);
  });
});
