// The live region (answer, attachments line, input box, status line) stays shorter than the window
// whatever the window and the prompt: else Ink clears the screen and the scrollback (SPEC §8).
import { describe, expect, it } from 'vitest';
import { answerLineBudget, inputRowBudget } from '../../src/render/ink/live-region-budget.js';
import { inputView } from '../../src/render/ink/input-layout.js';

// The input box's border (2), the margin above it (1) and the status line (1).
const FRAME_ROWS = 4;
const TALL_PROMPT = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');

describe('live region budget', () => {
  it('answer + input box + chrome never reach the window height (windows of 12 to 80 rows)', () => {
    for (let rows = 12; rows <= 80; rows++) {
      for (const answering of [false, true]) {
        for (const attachmentRows of [0, 1]) {
          const inputRows = inputView(TALL_PROMPT, TALL_PROMPT.length, 40, inputRowBudget(rows, attachmentRows, answering), () => '').height;
          const answerLines = answering ? answerLineBudget(rows, inputRows, attachmentRows) : 0;
          expect(answerLines + inputRows + attachmentRows + FRAME_ROWS, `${rows} rows, answering ${answering}, attachments ${attachmentRows}`).toBeLessThan(rows);
        }
      }
    }
  });

  it('the box\'s text takes at most the window\'s rows minus 6', () => {
    for (let rows = 8; rows <= 80; rows++) expect(inputRowBudget(rows, 0, false)).toBe(rows - 6);
  });

  it('while an answer streams the input box gets at most half of the free rows', () => {
    expect(inputRowBudget(40, 0, true)).toBeLessThanOrEqual(inputRowBudget(40, 0, false) / 2);
  });

  it('a short prompt leaves the rest of the window to the answer', () => {
    expect(answerLineBudget(40, 1, 0)).toBeGreaterThan(answerLineBudget(40, 10, 0));
    expect(answerLineBudget(40, 1, 1)).toBe(answerLineBudget(40, 1, 0) - 1);
  });

  it('a tiny window still gets one input row and three answer lines', () => {
    expect(inputRowBudget(3, 1, true)).toBe(1);
    expect(answerLineBudget(3, 1, 1)).toBe(3);
  });
});
