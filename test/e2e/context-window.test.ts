// Fitting the context window (SPEC §17), the built binary against the dev gateway's `context-N`
// (a model with an N-token window that refuses longer requests with the vendors' 400): a 30-turn
// conversation continued there gets its answer with one line saying what was left out; the window
// is learned from the 400 and recorded, so the next -c needs one request; --context full and n.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { savedAnswer } from '../helpers/conversation.js';

const ctx = useGatewayAndUser();
const gatechat = (args: string[]) => runCli(['--base-url', ctx.base, ...args], { env: ctx.user.env() });
type Body = { messages: Array<{ role: string; content: string }>; max_tokens?: number; system?: string };
const bodies = () => ctx.gateway.requests.filter((r) => /\/(chat\/completions|messages)$/.test(r.path)).map((r) => r.body as Body);
const configFile = () => JSON.parse(readFileSync(join(ctx.user.configDir, 'config.json'), 'utf8'));

const answer = (content: string, model: string, api: 'chat' | 'messages') => savedAnswer(content, { model, api, usage: { input_tokens: null, output_tokens: null } });

/** A saved conversation of `turns` turns, each about 110 tokens (a 200-character prompt, echoed). */
function longConversation(model: string, turns: number, api: 'chat' | 'messages' = 'chat', system: string | null = 'You are terse.'): string {
  const store = new ConversationStore(ctx.user.dataDir);
  const cid = store.create({ model, api, system });
  for (let i = 0; i < turns; i++) {
    const prompt = `turn ${String(i).padStart(2, '0')}: ${'tell me more about the history of kites '.repeat(5)}`;
    store.appendAssistant(cid, { ...answer(prompt, model, api), turn: store.appendUser(cid, prompt) });
  }
  return cid;
}

const notices = (stderr: string) => stderr.split('\n').filter(Boolean);

describe('a long conversation on a model with a small context window', () => {
  it('is answered with one line saying what was left out; the window is learned, so the next -c takes one request', async () => {
    longConversation('context-2000', 30);
    const first = await gatechat(['-c', 'and what came next?']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('and what came next?\n');
    const lines = notices(first.stderr);
    expect(lines, first.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^gatechat: left out the (\d+) oldest turns \(about \d+ tokens\) to fit context-2000's context window of 2000 tokens \(learned from the gateway's refusal; remembered\) \(--context full sends them all\)$/);
    // The whole conversation was refused once; the fitted one answered.
    const [refused, fitted] = bodies();
    expect(bodies()).toHaveLength(2);
    expect(refused!.messages).toHaveLength(1 + 60 + 1);
    const omitted = Number(/left out the (\d+)/.exec(lines[0]!)![1]);
    expect(fitted!.messages).toHaveLength(1 + 2 * (30 - omitted) + 1);
    // Never the system prompt or the new prompt; the newest turns, whole, in order.
    expect(fitted!.messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
    expect(fitted!.messages.at(-1)).toEqual({ role: 'user', content: 'and what came next?' });
    expect(fitted!.messages[1]!.content).toMatch(new RegExp(`^turn ${String(omitted).padStart(2, '0')}:`));
    expect(fitted!.messages.at(-2)!.content).toMatch(/^turn 29:/);
    expect(configFile().models).toEqual({ 'context-2000': { context: 2000 } });

    ctx.gateway.requests.length = 0;
    const second = await gatechat(['-c', 'and after that?']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('and after that?\n');
    expect(bodies()).toHaveLength(1);
    expect(notices(second.stderr)).toHaveLength(1);
    expect(second.stderr).toMatch(/^gatechat: left out the \d+ oldest turns \(about \d+ tokens\) to fit context-2000's context window of 2000 tokens \(--context full sends them all\)\n$/);
  });

  it('on Messages too: Anthropic\'s wording is understood and the system prompt stays top-level', async () => {
    // Messages always sends max_tokens (4096 by default): the window holds it and about 17 turns.
    longConversation('context-6000', 40, 'messages');
    const run = await gatechat(['-c', 'next?']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('next?\n');
    expect(bodies()).toHaveLength(2);
    expect(bodies()[1]!.system).toBe('You are terse.');
    expect(bodies()[1]!.max_tokens).toBe(4096);
    expect(bodies()[1]!.messages.length).toBeGreaterThan(10);
    expect(configFile().models['context-6000']).toEqual({ context: 6000 });
  });

  it('a window known from the entry fits at once; --context full sends all (and fails as the gateway says); --context N keeps N', async () => {
    longConversation('context-2000', 30);
    expect((await runCli(['config', 'set', '--model', 'context-2000', 'context', '2000'], { env: ctx.user.env() })).code).toBe(0);
    const fitted = await gatechat(['-c', '--no-save', 'fits at once']);
    expect(fitted.code, fitted.stderr).toBe(0);
    expect(bodies()).toHaveLength(1);

    ctx.gateway.requests.length = 0;
    const full = await gatechat(['-c', '--no-save', '--context', 'full', 'everything']);
    expect(full.code).toBe(4);
    expect(full.stderr).toMatch(/maximum context length is 2000 tokens/);
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]!.messages).toHaveLength(62);

    ctx.gateway.requests.length = 0;
    const three = await gatechat(['-c', '--no-save', '--context', '3', 'three']);
    expect(three.code, three.stderr).toBe(0);
    expect(bodies()[0]!.messages.map((m) => m.content.slice(0, 7))).toEqual(['You are', 'turn 27', 'turn 27', 'turn 28', 'turn 28', 'turn 29', 'turn 29', 'three']);
    expect(three.stderr).toMatch(/^gatechat: left out the 27 oldest turns \(about \d+ tokens\) \(--context 3\)\n$/);
  });

  it('--context refuses anything but full or a whole number, before sending', async () => {
    for (const bad of ['0', 'all', '-2', '1.5']) {
      const run = await gatechat(['-m', 'echo', '--context', bad, 'hi']);
      expect(run.code, bad).toBe(2);
      expect(run.stderr).toMatch(/^gatechat: --context: expected /);
    }
    expect(bodies()).toHaveLength(0);
  });

  it('the models cache gives the window: after `gatechat models`, the first -c fits at once', async () => {
    expect((await gatechat(['models'])).code).toBe(0);
    longConversation('context-2000', 30);
    ctx.gateway.requests.length = 0;
    const run = await gatechat(['-c', 'from the list']);
    expect(run.code, run.stderr).toBe(0);
    expect(bodies()).toHaveLength(1);
    expect(run.stderr).toMatch(/left out the \d+ oldest turns .*window of 2000 tokens \(--context full/);
  });
});
