import type { Api, Attachment, ChatMessage } from './events.js';
import type { JsonObject } from './json.js';

// SPEC §12 wire forms of attachments. Text files become fenced blocks in the message text (placed
// before stdin and the prompt); images and PDFs become content parts, placed before the text part
// as both vendors recommend. A message with no binary attachment keeps plain string content.

/** The longest run of backticks in `text`, so the fence around it can be one longer. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/** A text file as the model sees it: its path, then its content in a fence its content cannot close. */
export function fencedFile(path: string, text: string): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `${path}\n${fence}\n${body}${fence}`;
}

function fencedFiles(message: ChatMessage): string[] {
  return (message.attachments ?? []).flatMap((a) => (a.kind === 'text' ? [fencedFile(a.path, a.text)] : []));
}

/** The message text: every text attachment's fenced block, then the message's own text. */
export function userText(message: ChatMessage): string {
  const blocks = fencedFiles(message);
  if (message.content !== '') blocks.push(message.content);
  return blocks.join('\n\n');
}

export function hasBinaryAttachment(message: ChatMessage): boolean {
  return (message.attachments ?? []).some((a) => a.kind !== 'text');
}

/** The file name without its directories: what a PDF is called on the wire. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== '');
  return parts[parts.length - 1] ?? path;
}

type BinaryAttachment = Exclude<Attachment, { kind: 'text' }>;

function binaryAttachments(message: ChatMessage): BinaryAttachment[] {
  return (message.attachments ?? []).filter((a): a is BinaryAttachment => a.kind !== 'text');
}

function chatBinaryPart(a: BinaryAttachment): JsonObject {
  switch (a.kind) {
    case 'image':
      return { type: 'image_url', image_url: { url: `data:${a.mime};base64,${a.data}` } };
    case 'pdf':
      return { type: 'file', file: { filename: baseName(a.path), file_data: `data:application/pdf;base64,${a.data}` } };
    default: {
      const never: never = a;
      return never;
    }
  }
}

function messagesBinaryPart(a: BinaryAttachment): JsonObject {
  switch (a.kind) {
    case 'image':
      return { type: 'image', source: { type: 'base64', media_type: a.mime, data: a.data } };
    case 'pdf':
      // title: the one place the Messages form can carry the file's name.
      return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: a.data }, title: baseName(a.path) };
    default: {
      const never: never = a;
      return never;
    }
  }
}

/** Chat Completions user content: a string, or image_url / file parts then one text part. */
export function chatUserContent(message: ChatMessage): string | JsonObject[] {
  return userContent(message, chatBinaryPart);
}

/** Messages user content: a string, or image / document blocks then one text block. */
export function messagesUserContent(message: ChatMessage): string | JsonObject[] {
  return userContent(message, messagesBinaryPart);
}

function userContent(message: ChatMessage, binaryPart: (a: BinaryAttachment) => JsonObject): string | JsonObject[] {
  const text = userText(message);
  if (!hasBinaryAttachment(message)) return text;
  const parts = binaryAttachments(message).map(binaryPart);
  // An empty text part is rejected by gateways in front of Anthropic; images alone are a message.
  if (text !== '') parts.push({ type: 'text', text });
  return parts;
}

/**
 * The same content always as parts, for prompt caching (SPEC §16): images and PDFs, then the text files
 * in one text part of their own, then the message's text. `attachments` counts the parts that hold files,
 * so a breakpoint can close them apart from the prompt that follows.
 */
export function userParts(message: ChatMessage, api: Api): { parts: JsonObject[]; attachments: number } {
  const parts = binaryAttachments(message).map(api === 'chat' ? chatBinaryPart : messagesBinaryPart);
  const files = fencedFiles(message);
  if (files.length > 0) parts.push({ type: 'text', text: files.join('\n\n') });
  const attachments = parts.length;
  if (message.content !== '') parts.push({ type: 'text', text: message.content });
  return { parts, attachments };
}
