// The Ink chat over a real Conversation against the in-process dev gateway, with a real store in
// a temp dir: what the gateway receives, what is recorded and what the screen shows.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { type, until, frame } from './ink-test-kit.js';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { openConversation, type ConversationDeps } from '../../src/session/conversation.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import type { ToolDefinition } from '../../src/protocol/events.js';
import { ChatApp } from '../../src/render/ink/ChatApp.js';
import { conversationDeps } from '../helpers/conversation.js';
import { loadMarkdown } from '../../src/render/ink/markdown-loader.js';
import { openInputHistory } from '../../src/render/ink/input-history.js';
import { compactionPrompt, SUMMARY_LEAD } from '../../src/session/compaction.js';

const ENTER = '\r';
const ESC = '\u001B';
const UP = '\u001B[A';

let gateway: RunningGateway;
let dir: string;
let store: ConversationStore;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  await loadMarkdown();
});
afterAll(() => gateway.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gc-ink-gw-'));
  store = new ConversationStore(join(dir, 'data'));
  gateway.requests.length = 0;
});
afterEach(() => {
  cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const TOOLS: ToolDefinition[] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { input: { type: 'string' } } } } }];

const deps = (model: string, extra: Partial<ConversationDeps> = {}): ConversationDeps => conversationDeps(gateway.url, store, model, extra);

function chat(model: string, extra: Partial<ConversationDeps> = {}) {
  const conversation = openConversation(deps(model, extra));
  const history = openInputHistory(join(dir, 'input-history.jsonl'));
  const onExit = vi.fn();
  const app = render(<ChatApp conversation={conversation} history={history} color={false} showReasoning version="9.9.9" onExit={onExit} env={{}} />);
  return { app, conversation, onExit };
}

const bodies = () => gateway.requests.map((r) => r.body as { messages: unknown[]; model: string });
const idle = (conversation: { turns: ReadonlyArray<unknown> }, n: number) => () => conversation.turns.length === n;

describe('chat over the dev gateway', () => {
  it('after a failed prompt, Up + Enter sends it once, not merged with the failed one', async () => {
    const { app, conversation } = chat('fail-500');
    await type(app, 'what is 2+2', ENTER);
    await until(idle(conversation, 1), 'the failed turn');
    await until(() => frame(app).includes('✗ failed'), 'the failure notice');
    await type(app, UP, ENTER);
    await until(idle(conversation, 2), 'the second failed turn');
    conversation.update({ model: 'echo' });
    await type(app, UP, ENTER);
    await until(idle(conversation, 3), 'the answer');
    expect(bodies().map((b) => b.messages)).toEqual([
      [{ role: 'user', content: 'what is 2+2' }],
      [{ role: 'user', content: 'what is 2+2' }],
      [{ role: 'user', content: 'what is 2+2' }],
    ]);
    await until(() => frame(app).split('\n').some((line) => line.trim() === 'what is 2+2'), 'the echoed answer');
  });

  for (const api of ['chat', 'messages'] as const) {
    it(`an answer with tool calls: the next prompt goes back as the tool result (${api})`, async () => {
      const { app, conversation } = chat('tool', { tools: TOOLS, settings: { model: 'tool', api, stream: true } });
      await type(app, 'weather in Oslo', ENTER);
      await until(idle(conversation, 1), 'the tool call');
      const call = conversation.turns[0]!.result.tool_calls[0]!;
      expect(call).toMatchObject({ name: 'get_weather', arguments: { input: 'weather in Oslo' } });
      await until(() => frame(app).includes('get_weather'), 'the tool call on screen');
      await until(() => frame(app).includes('your next message is sent as the result of the tool call(s) above'), 'the hint');
      conversation.update({ model: 'echo' });
      await type(app, 'sunny, 21 C', ENTER);
      await until(idle(conversation, 2), 'the answer');
      const sent = bodies()[1]!.messages;
      if (api === 'chat') {
        expect(sent).toEqual([
          { role: 'user', content: 'weather in Oslo' },
          { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(call.arguments) } }] },
          { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' },
        ]);
      } else {
        expect(sent).toEqual([
          { role: 'user', content: 'weather in Oslo' },
          { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: 'get_weather', input: { input: 'weather in Oslo' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny, 21 C' }] },
        ]);
      }
    });
  }

  it('/retry asks the last prompt again in its place: same context, and it supersedes the answer on disk', async () => {
    const { app, conversation } = chat('fail-500');
    await type(app, 'first', ENTER);
    await until(idle(conversation, 1), 'the failed turn');
    conversation.update({ model: 'echo' });
    await type(app, '/retry', ENTER);
    await until(() => gateway.requests.length === 2 && idle(conversation, 1)() && conversation.turns[0]?.status === 'complete', 'the retried turn');
    await type(app, '/retry', ENTER);
    await until(() => gateway.requests.length === 3 && conversation.turns[0]?.status === 'complete', 'the second retry');
    expect(bodies().map((b) => b.messages)).toEqual([
      [{ role: 'user', content: 'first' }],
      [{ role: 'user', content: 'first' }],
      [{ role: 'user', content: 'first' }],
    ]);
    await type(app, 'second', ENTER);
    await until(idle(conversation, 2), 'the next turn');
    expect(bodies()[3]!.messages).toEqual([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'first' },
      { role: 'user', content: 'second' },
    ]);
    const saved = store.load(conversation.cid!).turns;
    expect(saved.map((t) => [t.user, t.assistant?.status])).toEqual([
      ['first', 'complete'],
      ['second', 'complete'],
    ]);
  });

  it('/save writes every turn of a resumed conversation, earlier ones included', async () => {
    const earlier = openConversation(deps('echo'));
    const signal = new AbortController().signal;
    for await (const _ of earlier.send('from last time', signal)) void _;
    const { app, conversation } = chat('echo', { resume: store.load(earlier.cid!) });
    await until(() => frame(app).includes('› from last time'), 'the earlier turn on screen');
    await type(app, 'and now', ENTER);
    await until(idle(conversation, 2), 'the new turn');
    const file = join(dir, 'transcript.md');
    await type(app, `/save ${file}`, ENTER);
    await until(() => frame(app).includes(`saved 2 turns to ${file}`), 'the save notice');
    const saved = readFileSync(file, 'utf8');
    expect(saved).toContain('- model: echo');
    expect(saved.split('## User')).toHaveLength(3);
    expect(saved).toContain('## User\n\nfrom last time\n\n## Assistant (echo)\n\nfrom last time');
    expect(saved).toContain('## User\n\nand now\n\n## Assistant (echo)\n\nand now');
  });

  it('Esc cancels a streaming answer: the partial text is kept, recorded as cancelled and sent back as it was', async () => {
    const { app, conversation } = chat('slow-150');
    await type(app, 'tell me a story', ENTER);
    await until(() => frame(app).includes('Lorem ipsum'), 'the first words');
    await type(app, ESC);
    await until(() => frame(app).includes('⊘ cancelled'), 'the cancelled mark');
    const turn = conversation.turns[0]!;
    expect(turn.status).toBe('cancelled');
    expect(turn.result.text).toMatch(/^Lorem ipsum/);
    expect(store.load(conversation.cid!).turns[0]!.assistant).toMatchObject({ status: 'cancelled', content: turn.result.text });
    conversation.update({ model: 'echo' });
    await type(app, 'go on', ENTER);
    await until(idle(conversation, 2), 'the next answer');
    expect(bodies()[1]!.messages).toEqual([
      { role: 'user', content: 'tell me a story' },
      { role: 'assistant', content: turn.result.text },
      { role: 'user', content: 'go on' },
    ]);
  });

  it('a resumed conversation prints its earlier turns (answers, tool calls, marks) above the prompt', async () => {
    const earlier = openConversation(deps('echo', { tools: TOOLS }));
    const signal = new AbortController().signal;
    for await (const _ of earlier.send('plain question', signal)) void _;
    earlier.update({ model: 'tool' });
    for await (const _ of earlier.send('weather in Oslo', signal)) void _;
    earlier.update({ model: 'fail-500' });
    for await (const _ of earlier.send('doomed', signal)) void _;
    const { app } = chat('echo', { resume: store.load(earlier.cid!) });
    await until(() => frame(app).includes('Ask anything'), 'the prompt');
    const screen = frame(app);
    const order = ['› plain question', 'plain question', '› weather in Oslo', 'get_weather', '› doomed', '✗ failed', 'Ask anything'];
    let at = -1;
    for (const text of order) {
      const found = screen.indexOf(text, at + 1);
      expect(found, `${text} after position ${at} in:\n${screen}`).toBeGreaterThan(at);
      at = found;
    }
  });
});

describe('/compact in the chat (SPEC §17)', () => {
  it('summarises the turns so far (shown as it streams), saves it, and the next prompt sends it in their place', async () => {
    const { app, conversation } = chat('echo', { settings: { model: 'echo', api: 'chat', stream: true, system: 'Be brief.' } });
    await type(app, 'one', ENTER);
    await until(idle(conversation, 1), 'the first answer');
    await type(app, 'two', ENTER);
    await until(idle(conversation, 2), 'the second answer');
    await type(app, '/compact keep names', ENTER);
    await until(() => frame(app).includes('compacted turns 1–2'), 'the compaction notice');
    // echo repeats what it was asked last: the summarising instruction, with the user's words.
    expect(bodies().at(-1)!.messages.at(-1)).toEqual({ role: 'user', content: compactionPrompt('keep names') });
    expect(frame(app)).toContain('Instructions for the summary: keep names');
    expect(conversation.turns).toHaveLength(2);
    await type(app, 'three', ENTER);
    await until(idle(conversation, 3), 'the third answer');
    expect(bodies().at(-1)!.messages).toEqual([
      { role: 'system', content: `Be brief.\n\n${SUMMARY_LEAD} ${compactionPrompt('keep names')}` },
      { role: 'user', content: 'three' },
    ]);
    const saved = store.load(conversation.cid!);
    expect(saved.summaries.map((s) => [s.covered, s.instructions])).toEqual([[2, 'keep names']]);
    expect(saved.turns).toHaveLength(3);
  });

  it('nothing to compact yet: one line, nothing sent; /help lists it', async () => {
    const { app } = chat('echo');
    await type(app, '/compact', ENTER);
    await until(() => frame(app).includes('nothing to compact yet'), 'the notice');
    expect(bodies()).toHaveLength(0);
    await type(app, '/help', ENTER);
    await until(() => frame(app).includes('/compact [instructions]'), 'the help line');
  });
});
