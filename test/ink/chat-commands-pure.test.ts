// The pure parts of SPEC §8 "Holding up" commands and state: Tab at the cursor (paths, models being
// fetched), @path references, /save!, help for line mode, in-chat hints, the live status, leaving.
import { describe, expect, it } from 'vitest';
import { findReferences } from '../../src/render/ink/at-references.js';
import { leavingLine } from '../../src/render/ink/chat-banner.js';
import type { LiveTurn } from '../../src/render/ink/chat-state.js';
import { helpText, inChatHint, parseInput } from '../../src/render/ink/commands.js';
import { completeAtCursor, type CompletionSources } from '../../src/render/ink/input-completion.js';
import { liveStatus } from '../../src/render/ink/StatusLine.js';
import { FakeConversation } from './fake-conversation.js';

const files: CompletionSources = {
  cwd: '/work',
  listDir: (dir) =>
    ({
      '/work': [{ name: 'notes.txt', dir: false }, { name: 'notes-old.txt', dir: false }, { name: 'docs', dir: true }, { name: '.env', dir: false }],
      '/work/docs': [{ name: 'guide.md', dir: false }],
    })[dir] ?? null,
};

describe('Tab at the cursor', () => {
  const tab = (value: string, cursor = value.length, sources = files) => completeAtCursor(value, cursor, sources);

  it('completes a path after @, /attach and /save: a file with a space after it, a directory with a slash', () => {
    expect(tab('read @docs/g')).toEqual({ kind: 'replace', from: 6, to: 12, text: 'docs/guide.md ', hint: null });
    expect(tab('read @do')).toMatchObject({ text: 'docs/' });
    expect(tab('/attach docs/')).toMatchObject({ from: 8, text: 'docs/guide.md ' });
    expect(tab('/save! no')).toMatchObject({ text: 'notes', hint: 'notes-old.txt  notes.txt' });
    expect(tab('/save zz')).toMatchObject({ text: 'zz', hint: 'no file or directory starts with that' });
  });

  it('completes template names after /template: one whole with a space, several to their common start and listed', () => {
    const withTemplates: CompletionSources = { ...files, templateNames: () => ['review', 'rewrite', 'explain'] };
    expect(tab('/template ex', undefined, withTemplates)).toEqual({ kind: 'replace', from: 0, to: 12, text: '/template explain ', hint: null });
    expect(tab('/template re', undefined, withTemplates)).toEqual({ kind: 'replace', from: 0, to: 12, text: '/template re', hint: 'review  rewrite' });
    expect(tab('/template zz', undefined, withTemplates)).toMatchObject({ text: '/template zz', hint: 'no template starts with that: /template lists them' });
    expect(tab('/templ', undefined, withTemplates)).toMatchObject({ text: '/template ' });
  });

  it('completes the @path the cursor is on, in the middle of a message; dot files only when asked for', () => {
    expect(tab('see @doc and more', 8)).toMatchObject({ from: 5, to: 8, text: 'docs/' });
    expect(tab('@.e')).toMatchObject({ text: '.env ' });
    expect(tab('@')).toMatchObject({ text: '' });
    expect((tab('@') as { hint: string }).hint).not.toContain('.env');
  });

  it('waits for the model list being fetched when nothing it has yet matches, then completes', () => {
    const fetching = Promise.resolve();
    const sources: CompletionSources = { modelNames: () => [], modelsPending: () => fetching };
    expect(tab('/model ', 7, sources)).toEqual({ kind: 'wait', until: fetching, hint: "fetching the gateway's model list…" });
    const later: CompletionSources = { modelNames: () => ['echo', 'lorem-3'], modelsPending: () => null };
    expect(tab('/model ', 7, later)).toMatchObject({ kind: 'replace', text: '/model ', hint: 'echo  lorem-3' });
    // An alias that matches is offered at once.
    expect(tab('/model fa', 9, { modelNames: () => ['fast'], modelsPending: () => fetching })).toMatchObject({ text: '/model fast ' });
  });

  it('does nothing on a plain prompt', () => {
    expect(tab('hello')).toBeNull();
  });
});

describe('@path references', () => {
  it('finds references that start a word, unescapes \\@, drops trailing punctuation as an alternative', () => {
    expect(findReferences('look at @src/a.ts, and me@example.com \\@b')).toEqual({
      text: 'look at @src/a.ts, and me@example.com @b',
      paths: [{ typed: 'src/a.ts,', trimmed: 'src/a.ts' }],
    });
    expect(findReferences('@one\n@two').paths.map((p) => p.typed)).toEqual(['one', 'two']);
  });
});

describe('commands', () => {
  it('/save! is /save that may overwrite; other commands take no !', () => {
    expect(parseInput('/save! out.md')).toEqual({ kind: 'command', name: 'save', arg: 'out.md', force: true });
    expect(parseInput('/save out.md')).toEqual({ kind: 'command', name: 'save', arg: 'out.md' });
    expect(parseInput('/exit!')).toMatchObject({ kind: 'unknown', name: 'exit!', suggestion: 'exit' });
    expect(parseInput('/max-tokens 5')).toEqual({ kind: 'command', name: 'max-tokens', arg: '5' });
  });

  it('line mode\'s help has none of the keys it cannot honour, nor /copy and /edit', () => {
    const line = helpText('line');
    for (const key of ['Alt+Enter', 'Up/Down', 'Tab', 'Ctrl-R', 'Esc', '/copy', '/edit', 'Ctrl-G']) expect(line).not.toContain(key);
    expect(line).toContain('/max-tokens');
    const full = helpText();
    for (const key of ['Ctrl-G', 'Ctrl-L', 'Ctrl-Z', 'Alt+Backspace', '@path', '/save!', 'Tab']) expect(full).toContain(key);
  });

  it('hints inside the chat name chat commands', () => {
    expect(inChatHint('list models: gatechat models')).toBe('list models: /models');
  });
});

describe('the status line while an answer streams', () => {
  const live = (over: Partial<LiveTurn>): LiveTurn => ({
    startedAt: 0, firstTokenAt: null, pending: '', pendingJoined: false, text: '', reasoning: '', reasoningDone: false, toolCalls: [], usage: null, deltas: 0, lastTokenAt: null, ...over,
  });

  it('counts this turn\'s tokens and seconds, and says how long it has waited after 3 s of silence', () => {
    expect(liveStatus(live({ deltas: 5, lastTokenAt: 1000 }), 2500)).toBe('↓ 5 tokens · 2 s');
    expect(liveStatus(live({ deltas: 5, lastTokenAt: 1000 }), 13_500)).toBe('↓ 5 tokens · waiting 12 s');
    expect(liveStatus(live({}), 4000)).toBe('↓ 0 tokens · waiting 4 s');
    expect(liveStatus(live({ deltas: 5, usage: { input_tokens: 3, output_tokens: 9 }, lastTokenAt: 100 }), 200)).toBe('↓ 9 tokens · 0 s');
  });
});

describe('leaving', () => {
  it('a saved chat says its turns, tokens and how to resume it; an unsaved or empty one says nothing', () => {
    const conversation = new FakeConversation();
    expect(leavingLine(conversation)).toBeNull();
    Object.assign(conversation, { cid: '20250101-000000-abcd' });
    expect(leavingLine(conversation)).toBeNull();
    conversation.turns.push({ prompt: 'p', status: 'complete', result: { usage: { input_tokens: 3, output_tokens: 4 } } } as never);
    expect(leavingLine(conversation)).toBe('1 turn · in 3 / out 4 tokens · resume: gatechat -c or gatechat --cid 20250101-000000-abcd');
  });
});
