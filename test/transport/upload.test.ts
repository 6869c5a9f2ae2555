// A streamed request body (HttpRequest.upload, SPEC §19's remote batch input): sent with its own
// content type and exact length, produced afresh for a retry or a 307, dropped by a 302 like any body.
import { describe, expect, it } from 'vitest';
import { sendRequest, type StreamedBody } from '../../src/transport/http.js';
import { connection, json, useLoopbackServers } from './loopback.js';

const server = useLoopbackServers();

/** Three chunks; counts how many times it was opened. */
function upload(): StreamedBody & { opened: number } {
  const parts = ['{"requests":[', '{"a":1}', ']}'];
  const body = {
    opened: 0,
    contentType: 'application/json',
    length: Buffer.byteLength(parts.join('')),
    async *open() {
      body.opened++;
      for (const part of parts) yield Buffer.from(part);
    },
  };
  return body;
}

describe('streamed uploads', () => {
  it('its content type and exact Content-Length, the whole body; a retry after a 503 sends it whole again', async () => {
    const s = await server((_q, res, _r, i) => (i === 0 ? json(res, 503, {}, { 'retry-after-ms': '10' }) : json(res, 200, { ok: 1 })));
    const body = upload();
    const response = await sendRequest({ conn: connection(s.url), method: 'POST', path: '/messages/batches', upload: body });
    expect(await response.text()).toBe('{"ok":1}');
    expect(body.opened).toBe(2);
    expect(s.requests.map((r) => r.body)).toEqual(['{"requests":[{"a":1}]}', '{"requests":[{"a":1}]}']);
    expect(s.requests[1].headers).toMatchObject({ 'content-type': 'application/json', 'content-length': '22' });
    expect(s.requests[1].headers['transfer-encoding']).toBeUndefined();
  });

  it('a 307 gets a fresh copy of the body; a 302 turns it into a GET without one', async () => {
    const s = await server((q, res) => {
      if (q.url === '/v1/temp') {
        res.writeHead(307, { location: '/v1/moved' });
        res.end();
      } else if (q.url === '/v1/found') {
        res.writeHead(302, { location: '/v1/got' });
        res.end();
      } else json(res, 200, { ok: true });
    });
    const kept = upload();
    await (await sendRequest({ conn: connection(s.url), method: 'POST', path: '/temp', upload: kept })).text();
    expect(s.requests[1]).toMatchObject({ method: 'POST', url: '/v1/moved', body: '{"requests":[{"a":1}]}' });
    expect(kept.opened).toBe(2);
    await (await sendRequest({ conn: connection(s.url), method: 'POST', path: '/found', upload: upload() })).text();
    expect(s.requests[3]).toMatchObject({ method: 'GET', url: '/v1/got', body: '' });
    expect(s.requests[3].headers['content-length']).toBeUndefined();
  });
});
