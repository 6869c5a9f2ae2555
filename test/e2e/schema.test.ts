// --schema as scripts meet it (SPEC §12): the built binary against the dev gateway's `json` and
// `json-bad` models over loopback HTTP — the request shapes on both interfaces, the document on
// stdout, exit 9 with the first violation named, and the parsed document in --json / --jsonl.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();

function gatechat(args: string[]) {
  return runCli(['--base-url', ctx.base, '--no-save', ...args], { env: ctx.user.env() });
}

const body = () => ctx.gateway.requests.at(-1)!.body as Record<string, any>;

const FILM = {
  type: 'object',
  properties: { title: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
  additionalProperties: false,
};

describe('--schema request shapes', () => {
  it('Chat Completions: response_format json_schema named answer, strict, from the field list', async () => {
    for (const stream of ['--stream', '--no-stream']) {
      const result = await gatechat(['-m', 'json', stream, '--schema', 'title, year int', 'a film']);
      expect(result.code, result.stderr).toBe(0);
      expect(body().response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema: FILM, strict: true } });
      expect(body()).not.toHaveProperty('tools');
    }
  });

  it('Messages: a single tool answer with the schema as input_schema, forced by tool_choice', async () => {
    for (const stream of ['--stream', '--no-stream']) {
      const result = await gatechat(['-m', 'json', '--api', 'messages', stream, '--schema', JSON.stringify(FILM), 'a film']);
      expect(result.code, result.stderr).toBe(0);
      expect(body().tools).toEqual([{ name: 'answer', input_schema: FILM }]);
      expect(body().tool_choice).toEqual({ type: 'tool', name: 'answer' });
      expect(body()).not.toHaveProperty('response_format');
    }
  });

  it('reads a schema file', async () => {
    const path = join(ctx.user.home, 'film.schema.json');
    writeFileSync(path, JSON.stringify(FILM));
    const result = await gatechat(['-m', 'json', '--schema', path, 'a film']);
    expect(result.code, result.stderr).toBe(0);
    expect(body().response_format.json_schema.schema).toEqual(FILM);
  });
});

describe('the answer', () => {
  it('a matching answer: exit 0, the document on one line on stdout (both interfaces, streaming and not)', async () => {
    for (const api of ['chat', 'messages']) {
      for (const stream of ['--stream', '--no-stream']) {
        const result = await gatechat(['-m', 'json', '--api', api, stream, '--schema', 'title, year int', 'a film']);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toBe('{"title":"sample title","year":1}\n');
        expect(result.stderr).toBe('');
      }
    }
  });

  it('a non-matching answer: exit 9, the first violation named, the answer still on stdout', async () => {
    for (const api of ['chat', 'messages']) {
      const result = await gatechat(['-m', 'json-bad', '--api', api, '--schema', 'title, year int', 'a film']);
      expect(result.code).toBe(9);
      expect(result.stdout).toBe('{"title":12345,"year":1}\n');
      expect(result.stderr).toMatch(/^gatechat: the answer does not match the schema: \/title must be string/);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('an answer that is not JSON: exit 9, printed as it came', async () => {
    const result = await gatechat(['-m', 'echo', '--schema', 'title', 'just words']);
    expect(result.code).toBe(9);
    expect(result.stdout).toBe('just words\n');
    expect(result.stderr).toMatch(/the answer is not JSON/);
  });

  it('--json carries the parsed document in data; --jsonl in its done event', async () => {
    const json = await gatechat(['-m', 'json', '--api', 'messages', '--json', '--schema', 'title, year int', 'a film']);
    expect(json.code, json.stderr).toBe(0);
    const object = JSON.parse(json.stdout);
    expect(object).toMatchObject({ data: { title: 'sample title', year: 1 }, status: 'complete', finish_reason: 'stop', tool_calls: [] });
    expect(JSON.parse(object.text)).toEqual(object.data);

    const bad = await gatechat(['-m', 'json-bad', '--jsonl', '--schema', 'title, year int', 'a film']);
    expect(bad.code).toBe(9);
    const done = JSON.parse(bad.stdout.trim().split('\n').at(-1)!);
    expect(done).toMatchObject({ type: 'done', data: { title: 12345, year: 1 }, error: { exit_code: 9 } });
  });
});

describe('compare mode', () => {
  it('checks every model\'s answer: a non-matching one makes the exit 9 after all finished', async () => {
    const result = await gatechat(['-m', 'json', '-m', 'json-bad', '--schema', 'title, year int', 'a film']);
    expect(result.code).toBe(9);
    expect(ctx.gateway.requests).toHaveLength(2);
    for (const request of ctx.gateway.requests) expect((request.body as any).response_format.json_schema.name).toBe('answer');
    expect(result.stderr).toMatch(/\[json-bad\] the answer does not match the schema: \/title must be string/);
  });
});

describe('refused before anything is sent (exit 2)', () => {
  it('a broken schema, a bad field type, a schema ajv cannot compile, --schema with --tools', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--schema', '{"type":'], /--schema: the inline schema is not valid JSON/],
      [['--schema', 'age integer'], /--schema: unknown type "integer" for field age/],
      [['--schema', '{"type":"object","properties":{"a":{"type":"bogus"}}}'], /--schema: not a usable JSON Schema/],
      [['--schema', 'a', '--tools', 'tools.json'], /--schema and --tools: choose one/],
    ];
    for (const [args, message] of cases) {
      const result = await gatechat(['-m', 'json', ...args, 'x']);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});
