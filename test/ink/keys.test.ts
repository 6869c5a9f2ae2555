import { describe, expect, it } from 'vitest';
import { decodeKeys } from '../../src/render/ink/keys.js';

const kinds = (raw: string) => decodeKeys(raw).map((k) => (k.kind === 'ctrl' ? `ctrl-${k.key}` : k.kind === 'text' ? `text:${k.text}` : k.kind));

describe('decodeKeys', () => {
  it.each([
    ['\r', ['enter']],
    ['\n', ['newline']],
    ['\u001B\r', ['newline']],
    ['\u001B[13;2u', ['newline']],
    ['\u001B[27;2;13~', ['newline']],
    ['\u001B[13u', ['enter']],
    ['\u007F', ['backspace']],
    ['\b', ['backspace']],
    ['\u001B[3~', ['delete']],
    ['\u001B\u007F', ['delete-word-back']],
    ['\u001B[D', ['left']],
    ['\u001BOC', ['right']],
    ['\u001B[1;5D', ['word-left']],
    ['\u001Bf', ['word-right']],
    ['\u001B[A', ['up']],
    ['\u001B[B', ['down']],
    ['\u001B[H', ['home']],
    ['\u001B[4~', ['end']],
    ['\t', ['tab']],
    ['\u001B', ['escape']],
    ['\u0003', ['ctrl-c']],
    ['\u0004', ['ctrl-d']],
    ['\u001B[99;5u', ['ctrl-c']],
    ['\u001B[200~', ['paste-start']],
    ['\u001B[201~', ['paste-end']],
    ['\u001B[15~', ['ignored']],
    ['héllo', ['text:héllo']],
    // Alt+b / Alt+f / Alt+d as ESC-prefixed keys and as kitty's CSI u with the Alt modifier.
    ['\u001Bb', ['word-left']],
    ['\u001Bd', ['delete-word-forward']],
    ['\u001B[98;3u', ['word-left']],
    ['\u001B[102;3u', ['word-right']],
    ['\u001B[100;3u', ['delete-word-forward']],
    ['\u001B[127;3u', ['delete-word-back']],
    ['\u001B[122;5u', ['ctrl-z']],
    // C1 controls typed or pasted are dropped.
    ['a\u009Bb', ['text:ab']],
  ])('%j → %j', (raw, expected) => {
    expect(kinds(raw)).toEqual(expected);
  });

  it('splits control keys typed faster than the UI reads from each other and from text', () => {
    expect(kinds('\u0018\u0005')).toEqual(['ctrl-x', 'ctrl-e']);
    expect(kinds('\u0015second draft')).toEqual(['ctrl-u', 'text:second draft']);
    expect(kinds('ab\u007F\u007F')).toEqual(['text:ab', 'backspace', 'backspace']);
    expect(kinds('/attach no\t')).toEqual(['text:/attach no', 'tab']);
    expect(kinds('a\tb')).toEqual(['text:a\tb']);
  });

  it('keeps line breaks of a pasted multi-line chunk in the text', () => {
    expect(kinds('one\rtwo\r')).toEqual(['text:one\ntwo\n']);
  });

  it('treats one line followed by CR in a single read as typed text then Enter', () => {
    expect(kinds('hello\r')).toEqual(['text:hello', 'enter']);
    expect(kinds('typed early\n')).toEqual(['text:typed early', 'enter']);
  });

  it('reads continuation lines typed in one burst (each break after a backslash, then Enter) as typed', () => {
    expect(kinds('line1\\\rline2\r')).toEqual(['text:line1\nline2', 'enter']);
    expect(kinds('a\\\nb\\\r\nc\n')).toEqual(['text:a\nb\nc', 'enter']);
    // A break without a backslash before it: a paste, kept as it is.
    expect(kinds('a\\\rb\rc\r')).toEqual(['text:a\\\nb\nc\n']);
  });

  it('a control character inside a burst is a key (inside a bracketed paste it is ignored: key-bindings.ts)', () => {
    expect(kinds('a\u0007b')).toEqual(['text:a', 'ctrl-g', 'text:b']);
  });
});
