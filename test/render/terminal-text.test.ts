import { describe, expect, it } from 'vitest';
import { sanitizeForTerminal, TerminalSanitizer } from '../../src/render/terminal-text.js';

const ESC = '\u001B';
const BEL = '\u0007';

describe('sanitizeForTerminal', () => {
  it.each([
    ['OSC 52 clipboard write (BEL)', `a${ESC}]52;c;aGVsbG8=${BEL}b`, 'ab'],
    ['OSC 2 window title (ST)', `a${ESC}]2;PWNED${ESC}\\b`, 'ab'],
    ['OSC 8 hyperlink', `${ESC}]8;;https://evil.example${BEL}click${ESC}]8;;${BEL}`, 'click'],
    ['C1 OSC', `a\u009D0;title\u009Cb`, 'ab'],
    ['unterminated OSC swallows the rest, as a terminal would', `a${ESC}]2;title and more`, 'a'],
    ['CSI cursor movement and erase', `a${ESC}[2J${ESC}[3J${ESC}[H${ESC}[10;20Hb`, 'ab'],
    ['CSI colour', `${ESC}[31mred${ESC}[0m`, 'red'],
    ['private CSI (synchronized output, bracketed paste)', `${ESC}[?2026h${ESC}[?2004lx`, 'x'],
    ['C1 CSI', `a\u009B2Jb`, 'ab'],
    ['DCS (ST-terminated)', `a${ESC}P1$qm${ESC}\\b`, 'ab'],
    ['APC, PM, SOS', `a${ESC}_x${ESC}\\b${ESC}^y${ESC}\\c${ESC}Xz${ESC}\\d`, 'abcd'],
    ['two-byte escapes (reset, save cursor, charset)', `a${ESC}cb${ESC}7c${ESC}(Bd`, 'abcd'],
    ['lone ESC at the end', `a${ESC}`, 'a'],
    ['carriage return, backspace, bell, DEL, vertical tab, form feed', 'a\rb\bc\u0007d\u007Fe\u000Bf\u000Cg', 'abcdefg'],
    ['other C1 controls (NEL, IND)', 'a\u0085b\u0084c', 'abc'],
    ['NUL', 'a\u0000b', 'ab'],
  ])('removes %s', (_name, input, expected) => {
    expect(sanitizeForTerminal(input)).toBe(expected);
  });

  it('keeps newlines, tabs and every printable character (Unicode included)', () => {
    const text = 'line 1\n\tindented — café 日本語 🙂 ¡\u00A0ok!\n';
    expect(sanitizeForTerminal(text)).toBe(text);
  });

  it('turns CRLF into LF (the CR would move the cursor)', () => {
    expect(sanitizeForTerminal('one\r\ntwo\r\n')).toBe('one\ntwo\n');
  });
});

describe('TerminalSanitizer (text in pieces)', () => {
  it('holds a sequence split across pieces until it ends, at every split point', () => {
    const whole = `before ${ESC}]52;c;aGVsbG8=${BEL} mid ${ESC}[2J${ESC}[31m after ${ESC}P1$q${ESC}\\ end`;
    for (let i = 0; i <= whole.length; i++) {
      for (const j of [i, Math.min(whole.length, i + 3)]) {
        const s = new TerminalSanitizer();
        const out = s.push(whole.slice(0, i)) + s.push(whole.slice(i, j)) + s.push(whole.slice(j)) + s.end();
        expect(out, `split at ${i}/${j}`).toBe('before  mid  after  end');
      }
    }
  });

  it('passes plain text straight through and drops an unterminated sequence at the end', () => {
    const s = new TerminalSanitizer();
    expect(s.push('plain ')).toBe('plain ');
    expect(s.push(`text${ESC}]2;never closed`)).toBe('text');
    expect(s.end()).toBe('');
  });
});
