import { describe, expect, it } from 'vitest';
import { buildMessagesRequest } from '../../src/protocol/anthropic-messages.js';
import { fencedFile, userText } from '../../src/protocol/attachment-parts.js';
import type { Attachment, RequestOptions } from '../../src/protocol/events.js';
import { buildChatRequest } from '../../src/protocol/openai-chat.js';

const png: Attachment = { kind: 'image', path: 'shots/a.png', mime: 'image/png', data: 'iVBORw0K', bytes: 6 };
const pdf: Attachment = { kind: 'pdf', path: 'docs/report.pdf', data: 'JVBERi0x', bytes: 6 };
const notes: Attachment = { kind: 'text', path: 'notes.md', text: 'line one\nline two\n' };

function request(attachments: Attachment[], content = 'describe it', stream = false): RequestOptions {
  return { model: 'm', messages: [{ role: 'user', content, attachments }], maxTokensField: 'max_tokens', stream };
}

describe('text attachments', () => {
  it('is a fenced block headed by the path, before the prompt, in a plain string', () => {
    const body = buildChatRequest(request([notes]));
    expect(body.messages).toEqual([{ role: 'user', content: 'notes.md\n```\nline one\nline two\n```\n\ndescribe it' }]);
    expect(buildMessagesRequest(request([notes])).messages).toEqual([
      { role: 'user', content: 'notes.md\n```\nline one\nline two\n```\n\ndescribe it' },
    ]);
  });

  it('uses a fence longer than any backtick run in the file, and closes a file without a final newline', () => {
    expect(fencedFile('a.md', 'x ```` y')).toBe('a.md\n`````\nx ```` y\n`````');
  });

  it('keeps the order the files were given, and no prompt text when there is none', () => {
    const other: Attachment = { kind: 'text', path: 'b.txt', text: 'b' };
    expect(userText({ role: 'user', content: '', attachments: [notes, other] })).toBe('notes.md\n```\nline one\nline two\n```\n\nb.txt\n```\nb\n```');
  });
});

describe('Chat Completions binary parts', () => {
  it('sends an image as an image_url data URL before the text part', () => {
    for (const stream of [false, true]) {
      const body = buildChatRequest(request([png, notes], 'describe it', stream));
      expect(body.messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
            { type: 'text', text: 'notes.md\n```\nline one\nline two\n```\n\ndescribe it' },
          ],
        },
      ]);
    }
  });

  it('sends a PDF as a file part with its base name and a data URL', () => {
    const body = buildChatRequest(request([pdf]));
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'file', file: { filename: 'report.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' } },
          { type: 'text', text: 'describe it' },
        ],
      },
    ]);
  });

  it('leaves out an empty text part', () => {
    expect(buildChatRequest(request([png], '')).messages).toEqual([
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } }] },
    ]);
  });
});

describe('Messages binary blocks', () => {
  it('sends an image block and a document block with base64 sources, then the text block', () => {
    for (const stream of [false, true]) {
      const body = buildMessagesRequest(request([png, pdf], 'compare', stream));
      expect(body.messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' }, title: 'report.pdf' },
            { type: 'text', text: 'compare' },
          ],
        },
      ]);
      expect(body.stream).toBe(stream);
    }
  });

  it('keeps earlier turns with their attachments (a continued conversation resends its image)', () => {
    const body = buildMessagesRequest({
      model: 'm',
      maxTokensField: 'max_tokens',
      stream: true,
      messages: [
        { role: 'user', content: 'what is it', attachments: [png] },
        { role: 'assistant', content: 'a cat' },
        { role: 'user', content: 'what colour' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } }, { type: 'text', text: 'what is it' }] },
      { role: 'assistant', content: 'a cat' },
      { role: 'user', content: 'what colour' },
    ]);
  });
});
