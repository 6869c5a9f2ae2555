/**
 * Where a streaming Markdown answer can be cut so the finished part renders the same on its own as
 * it would inside the whole: at a blank line outside any code fence, when the next block has already
 * begun and does not continue the previous one (a list item, indented continuation). Rendering the
 * part before the cut once and moving it out of the live region keeps the live region small.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;

interface OpenFence {
  char: string;
  length: number;
}

/** Returns the offset just after a safe blank line (0 when there is none yet). */
export function findLastSafeSplitPoint(text: string): number {
  let fence: OpenFence | null = null;
  let best = 0;
  let offset = 0;
  let previousBlank = false;
  let previousContent: string | null = null;
  let blankStart = -1;
  while (true) {
    const newline = text.indexOf('\n', offset);
    if (newline === -1) {
      // The partial last line has begun the next block: decide on what it shows so far.
      if (previousBlank && fence === null && blankStart > 0) {
        const partial = text.slice(offset);
        // A partial line that might still turn into a list item or continuation does not count yet.
        if (partial.length > 0 && !/^[-*+\d[ \t]/.test(partial) && isSafeBlockStart(partial, previousContent)) best = offset;
      }
      return best;
    }
    const line = text.slice(offset, newline);
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      if (fenceMatch && fenceMatch[1]![0] === fence.char && fenceMatch[1]!.length >= fence.length && line.trim() === fenceMatch[1]) {
        fence = null;
      }
      previousBlank = false;
      previousContent = line;
    } else if (line.trim() === '') {
      if (!previousBlank) blankStart = offset;
      previousBlank = true;
    } else {
      if (previousBlank && blankStart > 0 && isSafeBlockStart(line, previousContent)) best = offset;
      if (fenceMatch) fence = { char: fenceMatch[1]![0]!, length: fenceMatch[1]!.length };
      previousBlank = false;
      previousContent = line;
    }
    offset = newline + 1;
  }
}

/** A block start that cannot belong to the block before the blank line. */
function isSafeBlockStart(line: string, previous: string | null): boolean {
  if (/^[ \t]/.test(line)) return false; // list continuation or indented code
  if (LIST_ITEM.test(line)) return false; // the same list may go on
  if (previous !== null && /^ {0,3}\[[^\]]+\]:/.test(line)) return false; // link reference definitions
  return true;
}
