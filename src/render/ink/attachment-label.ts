/**
 * How attachments are named on screen: the line above the input box and the prompt as printed in the
 * transcript. Kept apart from the chat component so both places say the same thing.
 */
import type { Attachment } from '../../protocol/events.js';
import { sanitizeForTerminal } from '../terminal-text.js';

/** `shot.png (image/png, 2.0 KiB)`: what the pending message carries, above the input box. */
export function attachmentLabel(a: Attachment): string {
  const size = a.kind === 'text' ? Buffer.byteLength(a.text) : a.bytes;
  const kind = a.kind === 'text' ? 'text' : a.kind === 'pdf' ? 'PDF' : a.mime;
  const shown = size < 1024 ? `${size} B` : size < 1024 * 1024 ? `${(size / 1024).toFixed(1)} KiB` : `${(size / 1024 / 1024).toFixed(1)} MiB`;
  return `${sanitizeForTerminal(a.path)} (${kind}, ${shown})`;
}

/** The prompt as the transcript prints it: the text, then one `[attached …]` line per file. */
export function promptWithAttachments(text: string, files: readonly Attachment[]): string {
  return files.length > 0 ? `${text}\n${files.map((f) => `[attached ${attachmentLabel(f)}]`).join('\n')}` : text;
}
