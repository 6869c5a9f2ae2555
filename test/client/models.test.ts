import { describe, expect, it } from 'vitest';
import { listModels } from '../../src/client/models.js';
import { connection, failure, json, useLoopbackServers } from '../transport/loopback.js';

const server = useLoopbackServers();

describe('listModels', () => {
  it('OpenAI shape {object:list, data}', async () => {
    const s = await server((_q, res) =>
      json(res, 200, { object: 'list', data: [{ id: 'gpt-x', object: 'model', owned_by: 'openai', created: 1700000000 }, { id: 'm2' }] }),
    );
    expect(await listModels(connection(s.url))).toMatchObject([{ id: 'gpt-x', owned_by: 'openai', created: 1700000000 }, { id: 'm2' }]);
    expect(s.requests[0]).toMatchObject({ method: 'GET', url: '/v1/models' });
    expect(s.requests[0].headers.authorization).toBe('Bearer sk-test-secret-1234');
  });

  it('Anthropic shape with display_name, created_at and has_more paging', async () => {
    const s = await server((q, res) => {
      if (q.url === '/v1/models') {
        json(res, 200, { data: [{ type: 'model', id: 'claude-a', display_name: 'Claude A', created_at: '2025-01-01T00:00:00Z' }], has_more: true, first_id: 'claude-a', last_id: 'claude-a' });
      } else {
        json(res, 200, { data: [{ type: 'model', id: 'claude-b', display_name: 'Claude B' }], has_more: false, last_id: 'claude-b' });
      }
    });
    expect(await listModels(connection(s.url, { auth: 'x-api-key' }))).toMatchObject([
      { id: 'claude-a', display_name: 'Claude A', created: 1735689600 },
      { id: 'claude-b', display_name: 'Claude B' },
    ]);
    expect(s.requests.map((r) => r.url)).toEqual(['/v1/models', '/v1/models?after_id=claude-a']);
  });

  it('a bare array', async () => {
    const s = await server((_q, res) => json(res, 200, [{ id: 'a' }, 'b', { nope: 1 }]));
    expect(await listModels(connection(s.url))).toEqual([{ id: 'a', raw: { id: 'a' } }, { id: 'b', raw: 'b' }]);
  });

  it.each([404, 405])('HTTP %i: this gateway does not offer a model list (exit 4)', async (status) => {
    const s = await server((_q, res) => json(res, status, { error: { message: 'not found' } }));
    const error = await failure(listModels(connection(s.url)));
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe(`this gateway does not offer a model list (GET ${s.url}/models: HTTP ${status})`);
  });

  it('401 stays an auth error (exit 3)', async () => {
    const s = await server((_q, res) => json(res, 401, { error: { message: 'bad key' } }));
    expect((await failure(listModels(connection(s.url)))).exitCode).toBe(3);
  });

  it('non-JSON answer: a clear error', async () => {
    const s = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><title>Login</title></html>');
    });
    const error = await failure(listModels(connection(s.url)));
    expect(error.exitCode).toBe(6);
    expect(error.message).toBe(`GET ${s.url}/models: the gateway answered with an HTML page instead of a JSON model list`);
  });
});
