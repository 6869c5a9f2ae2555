// The live frame read from what Ink writes, and the escape codes that erase it as a narrower terminal
// reflowed it (SPEC §8: a resize leaves no piece of the old live region), move it to the top (Ctrl-L).
import { describe, expect, it } from 'vitest';
import { kittyKeyboardMode } from '../../src/render/ink/ink-terminal.js';
import { eraseFrame, eraseReflowed, FrameTracker, frameToTop } from '../../src/render/ink/terminal-frame.js';

const ESC = '\u001B';
/** ansi-escapes' eraseLines(n), as Ink's log-update writes it. */
const eraseLines = (n: number) => Array.from({ length: n }, (_, i) => `${ESC}[2K${i < n - 1 ? `${ESC}[1A` : ''}`).join('') + `${ESC}[G`;

describe('FrameTracker', () => {
  it('takes the last text Ink wrote as the frame, after its erase of the one before', () => {
    const tracker = new FrameTracker();
    tracker.observe(`${ESC}[?2026h`, 100);
    tracker.observe('╭──╮\n│ › │\n╰──╯\n', 100);
    tracker.observe(`${ESC}[?2026l`, 100);
    expect(tracker.lines()).toEqual(['╭──╮', '│ › │', '╰──╯']);
    expect(tracker.columns).toBe(100);
    tracker.observe(`${eraseLines(4)}new\n`, 90);
    expect(tracker.lines()).toEqual(['new']);
    expect(tracker.columns).toBe(90);
  });

  it('static output is followed by the frame; an erase alone leaves no frame', () => {
    const tracker = new FrameTracker();
    tracker.observe('frame\n', 80);
    tracker.observe(eraseLines(2), 80);
    expect(tracker.frame).toBeNull();
    tracker.observe('printed once\n', 80);
    tracker.observe('frame again\n', 80);
    expect(tracker.lines()).toEqual(['frame again']);
    // Escape-only writes (OSC 52, modes) are no frame.
    tracker.observe(`${ESC}]52;c;aGk=\u0007`, 80);
    expect(tracker.lines()).toEqual(['frame again']);
  });

  it('notes the kitty keyboard flags Ink pushes and pops', () => {
    const tracker = new FrameTracker();
    tracker.observe(`${ESC}[>1u`, 80);
    expect(tracker.kittyFlags).toBe('1');
    tracker.observe(`${ESC}[<u`, 80);
    expect(tracker.kittyFlags).toBeNull();
  });
});

describe('escape codes for the frame', () => {
  it('erases a frame reflowed onto more rows, then stands where Ink expects its frame to end', () => {
    // A 100-column border is three rows at 40 columns, a 50-column line two, an empty line one.
    const lines = ['', '╭' + '─'.repeat(98) + '╮', 'x'.repeat(50)];
    expect(eraseReflowed(lines, 40)).toBe(`${ESC}[6A${ESC}[J${ESC}[3B`);
    // Measured as drawn: CJK takes two columns, escape codes none.
    expect(eraseReflowed([`${ESC}[36m${'漢'.repeat(30)}${ESC}[39m`], 40)).toBe(`${ESC}[2A${ESC}[J${ESC}[1B`);
    expect(eraseReflowed([], 40)).toBe('');
  });

  it('erases a frame in place, and moves it to the top with the screen above it scrolled away', () => {
    expect(eraseFrame(['a', 'b'])).toBe(`${ESC}[2A${ESC}[J`);
    expect(frameToTop(['a', 'b'], 'a\nb\n', 5)).toBe(`${ESC}[2A${ESC}[J\n\n\n\n${ESC}[Ha\nb\n`);
    // Never a clear of the screen or the scrollback.
    expect(frameToTop(['a'], 'a\n', 30)).not.toMatch(/\u001B\[[23]J|\u001Bc/);
  });
});

describe('kitty keyboard protocol', () => {
  it('is pushed in terminals known to have it (not through tmux or screen), else left to Ink to ask', () => {
    expect(kittyKeyboardMode({ TERM: 'foot' })).toBe('enabled');
    expect(kittyKeyboardMode({ TERM: 'alacritty' })).toBe('enabled');
    expect(kittyKeyboardMode({ TERM: 'xterm-256color', TERM_PROGRAM: 'iTerm.app' })).toBe('enabled');
    expect(kittyKeyboardMode({ TERM: 'xterm-kitty', TMUX: '/tmp/tmux-1/default,1,0' })).toBe('auto');
    expect(kittyKeyboardMode({ TERM: 'xterm-256color' })).toBe('auto');
  });
});
