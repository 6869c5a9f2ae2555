import { describe, expect, it } from 'vitest';
import { buildMessagesRequest } from '../../src/protocol/anthropic-messages.js';
import type { Attachment, ChatMessage, RequestOptions } from '../../src/protocol/events.js';
import { buildChatRequest } from '../../src/protocol/openai-chat.js';

// SPEC §16 --cache: where the request builders put cache_control, on both interfaces.

const EPHEMERAL = { type: 'ephemeral' };
const png: Attachment = { kind: 'image', path: 'a.png', mime: 'image/png', data: 'iVBO', bytes: 3 };
const notes: Attachment = { kind: 'text', path: 'notes.md', text: 'line one\n' };
const notesText = 'notes.md\n```\nline one\n```';

function request(messages: ChatMessage[], model = 'claude-x'): RequestOptions {
  return { model, messages, system: 'be brief', maxTokensField: 'max_tokens', stream: false, cache: true };
}

/** Every cache_control in a body, wherever it is. */
function breakpoints(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + breakpoints(v), 0);
  if (value === null || typeof value !== 'object') return 0;
  return Object.entries(value).reduce((n, [key, v]) => n + (key === 'cache_control' ? 1 : breakpoints(v)), 0);
}

const first: ChatMessage = { role: 'user', content: 'describe it', attachments: [png, notes] };
const continued: ChatMessage[] = [first, { role: 'assistant', content: 'a picture' }, { role: 'user', content: 'and then?' }];

describe('Messages with --cache', () => {
  it('marks the system prompt and the last attachment part; text files get a part of their own before the prompt', () => {
    const body = buildMessagesRequest(request([first]));
    expect(body.system).toEqual([{ type: 'text', text: 'be brief', cache_control: EPHEMERAL }]);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
          { type: 'text', text: notesText, cache_control: EPHEMERAL },
          { type: 'text', text: 'describe it' },
        ],
      },
    ]);
  });

  it('marks the last earlier user message; every user message is parts, so a moving breakpoint never changes a form', () => {
    const body = buildMessagesRequest(request([...continued, { role: 'assistant', content: 'more' }, { role: 'user', content: 'last' }]));
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } }, { type: 'text', text: notesText, cache_control: EPHEMERAL }, { type: 'text', text: 'describe it' }] },
      { role: 'assistant', content: 'a picture' },
      { role: 'user', content: [{ type: 'text', text: 'and then?', cache_control: EPHEMERAL }] },
      { role: 'assistant', content: 'more' },
      { role: 'user', content: [{ type: 'text', text: 'last' }] },
    ]);
    expect(breakpoints(body)).toBe(3);
  });

  it('puts one breakpoint on a part that is both the last attachment and the end of the earlier message', () => {
    const body = buildMessagesRequest(request([{ role: 'user', content: '', attachments: [png] }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'next' }]));
    expect((body.messages as Array<{ content: unknown }>)[0].content).toEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' }, cache_control: EPHEMERAL }]);
    expect(breakpoints(body)).toBe(2);
  });

  it('never sends more than 4 breakpoints, however long the conversation and however many files', () => {
    const messages: ChatMessage[] = [];
    for (let i = 0; i < 20; i++) messages.push({ role: 'user', content: `q${i}`, attachments: [png, notes] }, { role: 'assistant', content: `a${i}` });
    messages.push({ role: 'user', content: 'now', attachments: [notes] });
    expect(breakpoints(buildMessagesRequest(request(messages)))).toBe(3);
    expect(breakpoints(buildChatRequest(request(messages, 'anthropic/claude-sonnet-4.5')))).toBe(3);
  });
});

describe('Chat Completions with --cache', () => {
  it('marks content parts for anthropic/ and claude model ids', () => {
    for (const model of ['anthropic/claude-sonnet-4.5', 'claude-3-5-haiku']) {
      const body = buildChatRequest(request(continued, model));
      expect(body.messages).toEqual([
        { role: 'system', content: [{ type: 'text', text: 'be brief', cache_control: EPHEMERAL }] },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } },
            { type: 'text', text: notesText, cache_control: EPHEMERAL },
            { type: 'text', text: 'describe it', cache_control: EPHEMERAL },
          ],
        },
        { role: 'assistant', content: 'a picture' },
        { role: 'user', content: [{ type: 'text', text: 'and then?' }] },
      ]);
    }
  });

  it('leaves other models\' requests as they are without --cache (they cache by themselves)', () => {
    for (const model of ['openai/gpt-4o', 'gpt-4o', 'meta/claude-lookalike']) {
      expect(buildChatRequest(request(continued, model))).toEqual(buildChatRequest({ ...request(continued, model), cache: false }));
    }
  });
});
