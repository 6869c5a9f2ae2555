// The Ink chat over a real Conversation against the in-process dev gateway, with a real store in
// a temp dir: what the gateway receives, what is recorded and what the screen shows.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { openConversation, type ConversationDeps } from '../../src/session/conversation.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import type { ToolDefinition } from '../../src/protocol/events.js';
import { ChatApp } from '../../src/render/ink/ChatApp.js';
import { loadMarkdown } from '../../src/render/ink/markdown-loader.js';
import { openInputHistory } from '../../src/render/ink/input-history.js';

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

function deps(model: string, extra: Partial<ConversationDeps> = {}): ConversationDeps {
  return {
    conn: {
      baseUrl: `${gateway.url}/v1`,
      auth: 'bearer',
      headers: {},
      timeouts: { connectMs: 2000, headersMs: 5000, idleMs: 5000 },
      retries: 0,
    },
    settings: { model, api: 'chat', stream: true },
    maxTokensField: 'max_tokens',
    store,
    record: true,
    ...extra,
  };
}

function chat(model: string, extra: Partial<ConversationDeps> = {}) {
  const conversation = openConversation(deps(model, extra));
  const history = openInputHistory(join(dir, 'input-history.jsonl'));
  const onExit = vi.fn();
  const app = render(<ChatApp conversation={conversation} history={history} color={false} showReasoning version="9.9.9" onExit={onExit} env={{}} />);
  return { app, conversation, onExit };
}

async function type(app: ReturnType<typeof render>, ...chunks: string[]) {
  for (const chunk of chunks) {
    app.stdin.write(chunk);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const frame = (app: ReturnType<typeof render>) => app.lastFrame() ?? '';
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
});
