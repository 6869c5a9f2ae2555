import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup, render } from 'ink-testing-library';
import { type, until, frame } from './ink-test-kit.js';
import { ChatApp } from '../../src/render/ink/ChatApp.js';
import { loadMarkdown } from '../../src/render/ink/markdown-loader.js';
import { openInputHistory } from '../../src/render/ink/input-history.js';
import { FakeConversation } from './fake-conversation.js';

const ENTER = '\r';
const ESC = '\u001B';
const UP = '\u001B[A';
const TAB = '\t';

function setup(options: { history?: string[]; delayMs?: number } = {}) {
  const conversation = new FakeConversation();
  conversation.delayMs = options.delayMs ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'gc-ink-'));
  const historyFile = join(dir, 'input-history.jsonl');
  const history = openInputHistory(historyFile);
  for (const h of options.history ?? []) history.entries.push(h);
  const onExit = vi.fn();
  const app = render(
    <ChatApp conversation={conversation} history={history} color={false} showReasoning version="9.9.9" onExit={onExit} editor={() => ({ text: 'from the editor' })} env={{}} />,
  );
  return { app, conversation, onExit, historyFile, dir };
}


afterEach(() => cleanup());

describe('ChatApp', () => {
  it('sends on Enter and shows the streamed answer, then the status line with tokens', async () => {
    await loadMarkdown();
    const { app, conversation, historyFile } = setup();
    await type(app, 'hello there', ENTER);
    await until(() => frame(app).includes('You said: hello there'), 'the answer');
    expect(conversation.sent).toEqual(['hello there']);
    await until(() => frame(app).includes('in 4 / out'), 'the status line');
    expect(frame(app)).toContain('fake-model · chat');
    expect(readFileSync(historyFile, 'utf8')).toBe('"hello there"\n');
  });

  it('Esc cancels a streaming answer: partial text kept, marked cancelled, prompt usable again', async () => {
    const { app, conversation } = setup({ delayMs: 40 });
    conversation.answer = () => 'one two three four five six seven eight nine ten eleven twelve';
    await type(app, 'go', ENTER);
    await until(() => frame(app).includes('one two'), 'the first words');
    await type(app, ESC);
    await until(() => frame(app).includes('⊘ cancelled'), 'the cancelled mark');
    expect(frame(app)).not.toContain('twelve');
    expect(conversation.turns[0]?.status).toBe('cancelled');
    conversation.delayMs = 0;
    conversation.answer = (p) => `again: ${p}`;
    await type(app, 'next', ENTER);
    await until(() => frame(app).includes('again: next'), 'the next answer');
  });

  it('slash commands update the settings and show them', async () => {
    const { app, conversation } = setup();
    await type(app, '/model other-model', ENTER);
    await type(app, '/temperature 0.3', ENTER);
    await type(app, '/api messages', ENTER);
    await type(app, '/stream off', ENTER);
    await until(() => frame(app).includes('stream: off'), 'the stream notice');
    expect(conversation.settings).toMatchObject({ model: 'other-model', temperature: 0.3, api: 'messages', stream: false });
    expect(frame(app)).toContain('other-model · messages · temp 0.3 · stream off');
    await type(app, '/temperature warm', ENTER);
    await until(() => frame(app).includes('/temperature: expected a number'), 'the validation error');
    expect(conversation.settings.temperature).toBe(0.3);
  });

  it('hints the closest command for an unknown one', async () => {
    const { app } = setup();
    await type(app, '/modle x', ENTER);
    await until(() => frame(app).includes('unknown command /modle — did you mean /model?'), 'the hint');
  });

  it('Tab completes a command name', async () => {
    const { app } = setup();
    await type(app, '/he', TAB);
    await until(() => frame(app).includes('/help '), 'the completion');
    await type(app, ENTER);
    await until(() => frame(app).includes('Commands:'), 'the help text');
  });

  it('Up recalls earlier prompts (from the history file and this session)', async () => {
    const { app } = setup({ history: ['from last session'] });
    await type(app, 'fresh prompt', ENTER);
    await until(() => frame(app).includes('You said: fresh prompt'), 'the answer');
    await type(app, UP);
    await until(() => /› fresh prompt\s*│/.test(frame(app)), 'the recalled prompt');
    await type(app, UP);
    await until(() => frame(app).includes('› from last session'), 'the older prompt');
  });

  it('a trailing backslash continues the prompt on a new line', async () => {
    const { app, conversation } = setup();
    await type(app, 'line one\\', ENTER, 'line two', ENTER);
    await until(() => conversation.sent.length === 1, 'the send');
    expect(conversation.sent[0]).toBe('line one\nline two');
  });

  it('bracketed paste keeps a multi-line paste as one message', async () => {
    const { app, conversation } = setup();
    await type(app, '\u001B[200~', 'pasted one\rpasted two\r', '\u001B[201~');
    expect(conversation.sent).toEqual([]);
    await type(app, ENTER);
    await until(() => conversation.sent.length === 1, 'the send');
    expect(conversation.sent[0]).toBe('pasted one\npasted two\n');
  });

  it('Ctrl-C clears a typed prompt; on an empty prompt asks once, then exits', async () => {
    const { app, onExit } = setup();
    await type(app, 'draft text', '\u0003');
    expect(frame(app)).not.toContain('draft text');
    await type(app, '\u0003');
    await until(() => frame(app).includes('press Ctrl-C again to exit'), 'the exit question');
    await type(app, '\u0003');
    await until(() => onExit.mock.calls.length === 1, 'the exit');
    expect(onExit).toHaveBeenCalledWith(0);
  });

  it('Ctrl-D on an empty prompt exits; /edit brings the editor text back, Enter sends it', async () => {
    const { app, conversation, onExit } = setup();
    await type(app, '/edit', ENTER);
    await until(() => frame(app).includes('› from the editor'), 'the edited prompt in the input box');
    expect(conversation.sent).toEqual([]);
    await type(app, ENTER);
    await until(() => conversation.sent[0] === 'from the editor', 'the edited prompt');
    await until(() => frame(app).includes('You said: from the editor'), 'its answer');
    await type(app, '\u0004');
    await until(() => onExit.mock.calls.length === 1, 'the exit');
  });

  it('/save writes a Markdown transcript, /retry asks again', async () => {
    const { app, conversation, dir } = setup();
    await type(app, 'question', ENTER);
    await until(() => conversation.turns.length === 1, 'the turn');
    await type(app, `/save ${join(dir, 't.md')}`, ENTER);
    await until(() => frame(app).includes('saved 1 turn to'), 'the save notice');
    expect(readFileSync(join(dir, 't.md'), 'utf8')).toContain('## User\n\nquestion');
    await type(app, '/retry', ENTER);
    await until(() => conversation.sent.length === 2, 'the retry');
    expect(conversation.sent[1]).toBe('question');
  });
});
