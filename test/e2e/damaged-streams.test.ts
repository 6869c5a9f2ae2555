// SPEC §5.4, §4 and issue 15 point 2: a damaged stream is never passed off as complete. The built
// binary against the hostile gateway over loopback, on both interfaces.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { makeUserDirs, runCli } from '../helpers/cli.js';
import { startHostileGateway, type HostileGateway } from '../helpers/hostile-gateway.js';

let gateway: HostileGateway;
let user: ReturnType<typeof makeUserDirs>;

beforeAll(async () => {
  gateway = await startHostileGateway();
});
afterAll(() => gateway.close());
beforeEach(() => {
  user = makeUserDirs();
});
afterEach(() => user.cleanup());

/** Every record of every conversation file under the data dir. */
export function savedRecords(dataDir: string): Record<string, any>[] {
  const records: Record<string, any>[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.jsonl')) {
        for (const line of readFileSync(path, 'utf8').split('\n')) if (line.trim()) records.push(JSON.parse(line));
      }
    }
  };
  walk(dataDir);
  return records;
}

const stderrLines = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '');

describe.each(['chat', 'messages'] as const)('damaged streams on %s', (api) => {
  it('a data event whose JSON does not parse: one line, exit 8, saved as interrupted, text before and after kept', async () => {
    const result = await runCli(['--base-url', gateway.base, '-m', 'broken-json', '--api', api, '--retries', '0', 'hi'], { env: user.env() });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stdout).toBe('before after\n');
    const lines = stderrLines(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/damaged.*not valid JSON/);
    const answer = savedRecords(user.dataDir).find((record) => record.type === 'assistant');
    expect(answer).toMatchObject({ status: 'interrupted', content: 'before after', error: { exit_code: 8 } });
  });

  it('--json of a damaged stream: status interrupted, exit 8, the text kept', async () => {
    const result = await runCli(['--base-url', gateway.base, '-m', 'broken-json', '--api', api, '--json', '--no-save', 'hi'], { env: user.env() });
    expect(result.code, result.stderr).toBe(8);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ text: 'before after', status: 'interrupted' });
  });

  it('a body that is not SSE although its content type says so is named as such, not as a cut connection', async () => {
    const result = await runCli(['--base-url', gateway.base, '-m', 'not-sse', '--api', api, '--retries', '0', '--no-save', 'hi'], { env: user.env() });
    expect(result.code).not.toBe(0);
    const lines = stderrLines(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/not an event stream although its content type is text\/event-stream: Service temporarily unavailable/);
    expect(lines[0]).not.toMatch(/connection closed/);
    expect(result.code).toBe(6);
  });

  it('a response whose headers carry control characters is named as not valid HTTP, not as a connect failure, and not retried', async () => {
    const before = gateway.requests.length;
    const result = await runCli(['--base-url', gateway.base, '-m', 'invalid-headers', '--api', api, '--retries', '2', '--no-save', 'hi'], { env: user.env() });
    expect(result.code).toBe(7);
    const lines = stderrLines(result.stderr);
    expect(lines).toEqual([expect.stringMatching(/^gatechat: the response from 127\.0\.0\.1:\d+ is not valid HTTP \(Invalid header value char\)$/)]);
    expect(gateway.requests.length - before).toBe(1);
  });

  it('batch: a damaged answer is a failed line with exit 8, never complete', async () => {
    const input = join(user.home, 'in.jsonl');
    writeFileSync(input, '{"id":"a","prompt":"hi"}\n');
    const output = join(user.home, 'out.jsonl');
    const result = await runCli(['batch', input, '--output', output, '--base-url', gateway.base, '-m', 'broken-json', '--api', api, '--retries', '0'], { env: user.env() });
    expect(result.code, result.stderr).toBe(8);
    const line = JSON.parse(readFileSync(output, 'utf8').trim());
    expect(line).toMatchObject({ id: 'a', status: 'interrupted', text: 'before after', error: { exit_code: 8 } });
  });
});
