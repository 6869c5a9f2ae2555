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

/** A piece cut from a streaming answer that found no safe split point within the size it may reach. */
export interface SizeCut {
  /** Renders on its own: a code block open at the cut is closed at its end. */
  head: string;
  /** The text after the cut; a code block open at the cut is opened again before it. */
  rest: string;
}

/**
 * Cuts a long block that has no safe split point (an endless line, a huge paragraph or code block)
 * so that the live region, which re-renders its text on every batch, stays small: at the last line
 * break in the first `max` characters when there is one in its second half, else at `max` (never
 * between the two halves of a surrogate pair). The cost is a paragraph shown as two; a code block
 * keeps its look, closed and reopened with the same fence.
 */
export function cutForSize(text: string, max: number): SizeCut {
  const newline = text.lastIndexOf('\n', max - 1);
  let at = newline >= max / 2 ? newline + 1 : max;
  const code = text.charCodeAt(at - 1);
  if (at === max && code >= 0xd800 && code <= 0xdbff) at -= 1;
  const fence = openFenceLine(text.slice(0, at));
  if (fence === null) return { head: text.slice(0, at), rest: text.slice(at) };
  const closer = /^ {0,3}(`{3,}|~{3,})/.exec(fence)![1]!;
  const head = text.slice(0, at);
  return { head: `${head}${head.endsWith('\n') ? '' : '\n'}${closer}\n`, rest: `${fence}\n${text.slice(at)}` };
}

/** The line that opened a code fence still open at the end of `text`, or null. */
function openFenceLine(text: string): string | null {
  let open: { line: string; char: string; length: number } | null = null;
  let offset = 0;
  while (offset <= text.length) {
    const newline = text.indexOf('\n', offset);
    // Only whole lines open or close a fence: a partial last line might still become something else.
    if (newline === -1) break;
    const line = text.slice(offset, newline);
    const match = FENCE.exec(line);
    if (open) {
      if (match && match[1]![0] === open.char && match[1]!.length >= open.length && line.trim() === match[1]) open = null;
    } else if (match) {
      open = { line, char: match[1]![0]!, length: match[1]!.length };
    }
    offset = newline + 1;
  }
  return open?.line ?? null;
}
