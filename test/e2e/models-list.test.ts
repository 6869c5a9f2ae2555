// `gatechat models` (SPEC §11) against loopback servers that serve the OpenRouter and LiteLLM list
// shapes from test/fixtures/model-lists: ids when piped, a filter, --json passing the gateway's
// objects through, and on a real terminal (tmux) the table with aliases, context length and prices.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeUserDirs, runCli } from '../helpers/cli.js';
import { describeInTerminal, useTerminals } from '../helpers/tmux.js';
import { useLoopbackServers } from '../transport/loopback.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '..', 'fixtures', 'model-lists', name), 'utf8');
const OPENROUTER = fixture('openrouter-models.json');
const LITELLM = fixture('litellm-model-info.json');

const serve = useLoopbackServers();
const listServer = (body: string) =>
  serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
const user = makeUserDirs();
afterAll(() => user.cleanup());

describe('gatechat models, piped', () => {
  it('ids one per line; a filter keeps ids containing it (any case)', async () => {
    const server = await listServer(OPENROUTER);
    const all = await runCli(['models', '--base-url', `${server.url}/v1`], { env: user.env() });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toBe('openai/gpt-4\nmistralai/mistral-nemo\nopenai/gpt-4o-mini\n');
    const some = await runCli(['models', 'GPT-4', '--base-url', `${server.url}/v1`], { env: user.env() });
    expect(some.stdout).toBe('openai/gpt-4\nopenai/gpt-4o-mini\n');
  });

  it("--json passes the gateway's objects through untouched (filtered too)", async () => {
    const server = await listServer(LITELLM);
    const result = await runCli(['models', 'claude', '--json', '--base-url', `${server.url}/v1`], { env: user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([JSON.parse(LITELLM).data[1]]);
  });
});

describeInTerminal('gatechat models on a terminal', () => {
  const terminals = useTerminals(() => user);

  async function table(base: string): Promise<string> {
    const session = terminals.launch(['models', '--base-url', base], { width: 120, height: 20, env: { NO_COLOR: '1' } });
    expect(await session.waitForExit()).toBe(0);
    return session.screen();
  }

  it('OpenRouter: aliases next to ids, context length and $ per million tokens', async () => {
    for (const args of [
      ['--model', 'big', 'model', 'openai/gpt-4'],
      ['--model', 'reviewer', 'model', 'openai/gpt-4'],
      ['--model', 'cheap', 'model', 'openai/gpt-4o-mini'],
    ]) {
      expect((await runCli(['config', 'set', ...args], { env: user.env() })).code).toBe(0);
    }
    const server = await listServer(OPENROUTER);
    const screen = await table(`${server.url}/v1`);
    expect(screen).toMatch(/^ID +ALIASES +CONTEXT +\$\/M IN +\$\/M OUT$/m);
    expect(screen).toMatch(/^openai\/gpt-4 +big, reviewer +8,192 +\$30\.00 +\$60\.00$/m);
    expect(screen).toMatch(/^mistralai\/mistral-nemo +128,000 +\$0\.30 +\$0\.30$/m);
    expect(screen).toMatch(/^openai\/gpt-4o-mini +cheap +128,000 +\$0\.15 +\$0\.60$/m);
    expect(screen).toContain(`3 models at ${server.url}/v1`);
  });

  it('LiteLLM: max_input_tokens and costs from model_info; a model without them shows blanks', async () => {
    const server = await listServer(LITELLM);
    const screen = await table(`${server.url}/v1`);
    expect(screen).toMatch(/^gpt-4 +8,192 +\$30\.00 +\$60\.00$/m);
    expect(screen).toMatch(/^claude-sonnet +200,000 +\$3\.00 +\$15\.00$/m);
    expect(screen).toMatch(/^local-llama$/m);
  });
});
