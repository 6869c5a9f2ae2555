// How attachments are named above the input box and in the printed prompt (pure: attachment-label.ts).
import { describe, expect, it } from 'vitest';
import { attachmentLabel, promptWithAttachments } from '../../src/render/ink/attachment-label.js';

describe('attachmentLabel', () => {
  it('names the kind and a readable size', () => {
    expect(attachmentLabel({ kind: 'text', path: 'notes.md', text: 'héllo' })).toBe('notes.md (text, 6 B)');
    expect(attachmentLabel({ kind: 'image', path: 'shot.png', mime: 'image/png', data: '', bytes: 2048 })).toBe('shot.png (image/png, 2.0 KiB)');
    expect(attachmentLabel({ kind: 'pdf', path: 'paper.pdf', data: '', bytes: 3 * 1024 * 1024 + 512 * 1024 })).toBe('paper.pdf (PDF, 3.5 MiB)');
  });

  it('drops escape codes from a file name before it reaches the terminal', () => {
    expect(attachmentLabel({ kind: 'text', path: 'evil\u001B[2Jname.txt', text: '' })).toBe('evilname.txt (text, 0 B)');
  });
});

describe('promptWithAttachments', () => {
  it('is the prompt itself when nothing is attached', () => {
    expect(promptWithAttachments('hello', [])).toBe('hello');
  });

  it('adds one [attached …] line per file, in order', () => {
    const files = [
      { kind: 'text' as const, path: 'a.txt', text: 'a' },
      { kind: 'pdf' as const, path: 'b.pdf', data: '', bytes: 10 },
    ];
    expect(promptWithAttachments('summarize', files)).toBe('summarize\n[attached a.txt (text, 1 B)]\n[attached b.pdf (PDF, 10 B)]');
  });
});
