// Issue 7 §6: /edit comes back for review, the "still coming" hint goes away, a trailing \ in one burst.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup, render } from 'ink-testing-library';
import { type, until, frame } from './ink-test-kit.js';
import { ChatApp } from '../../src/render/ink/ChatApp.js';
import { openInputHistory } from '../../src/render/ink/input-history.js';
import { FakeConversation } from './fake-conversation.js';

const ENTER = '\r';
afterEach(() => cleanup());

function setup(options: { delayMs?: number; editor?: (initial: string) => { text: string | null; error?: string } } = {}) {
  const conversation = new FakeConversation();
  conversation.delayMs = options.delayMs ?? 0;
  const history = openInputHistory(join(mkdtempSync(join(tmpdir(), 'gc-ink-')), 'h.jsonl'));
  const app = render(
    <ChatApp conversation={conversation} history={history} color={false} showReasoning version="9" onExit={vi.fn()} editor={options.editor ?? ((initial) => ({ text: `${initial} (edited)` }))} env={{}} />,
  );
  return { app, conversation };
}


describe('chat rough edges', () => {
  it('/edit puts the edited text in the input box for review; it is sent only on Enter', async () => {
    const { app, conversation } = setup();
    await type(app, '/edit draft prompt', ENTER);
    await until(() => frame(app).includes('› draft prompt (edited)'), 'the edited text in the input box');
    await new Promise((r) => setTimeout(r, 50));
    expect(conversation.sent).toEqual([]);
    await type(app, ENTER);
    await until(() => conversation.sent.length === 1, 'the send');
    expect(conversation.sent[0]).toBe('draft prompt (edited)');
  });

  it('/edit left without changes (:q!) sends nothing either', async () => {
    const { app, conversation } = setup({ editor: (initial) => ({ text: initial }) });
    await type(app, '/edit keep me', ENTER);
    await until(() => frame(app).includes('› keep me'), 'the text back in the input box');
    await new Promise((r) => setTimeout(r, 50));
    expect(conversation.sent).toEqual([]);
  });

  it('the "answer still coming" hint goes away when the answer ends', async () => {
    const { app, conversation } = setup({ delayMs: 40 });
    await type(app, 'one two three four five six', ENTER);
    await until(() => frame(app).includes('You said'), 'the answer starting');
    await type(app, 'next', ENTER);
    await until(() => frame(app).includes('an answer is still coming'), 'the hint');
    await until(() => conversation.turns.length === 1, 'the end of the answer');
    await until(() => !frame(app).includes('an answer is still coming'), 'the hint gone', 2000);
    expect(frame(app)).toContain('› next');
  });

  it('a trailing backslash and Enter arriving in one read start a new line', async () => {
    const { app, conversation } = setup();
    await type(app, 'line1\\\r');
    await type(app, 'line2', ENTER);
    await until(() => conversation.sent.length === 1, 'the send');
    expect(conversation.sent[0]).toBe('line1\nline2');
  });

  it('continuation lines and the final Enter typed in one burst are one prompt, sent', async () => {
    const { app, conversation } = setup();
    await type(app, 'line1\\\rline2\\\rline3\r');
    await until(() => conversation.sent.length === 1, 'the send');
    expect(conversation.sent[0]).toBe('line1\nline2\nline3');
  });

  it('a multi-line burst without continuations stays a paste (kept in the box, not sent)', async () => {
    const { app, conversation } = setup();
    await type(app, 'pasted one\rpasted two\r');
    await until(() => frame(app).includes('pasted two'), 'the pasted text');
    await new Promise((r) => setTimeout(r, 50));
    expect(conversation.sent).toEqual([]);
  });

  it('a trailing backslash then Enter typed fast as separate keys start a new line', async () => {
    const { app, conversation } = setup();
    app.stdin.write('line1');
    app.stdin.write('\\');
    app.stdin.write(ENTER);
    await type(app, 'line2', ENTER);
    await until(() => conversation.sent.length === 1, 'the send');
    expect(conversation.sent[0]).toBe('line1\nline2');
  });
});
