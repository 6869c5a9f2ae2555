// SPEC §8: answers read well — soft line breaks kept, URLs never split by wrapping, code keeps its
// indentation when it wraps. Checked on the renderer and on what Ink draws.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Box } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { renderMarkdown } from '../../src/render/ink/markdown.js';
import { loadMarkdown } from '../../src/render/ink/markdown-loader.js';
import { StaticEntry } from '../../src/render/ink/StaticEntry.js';

afterEach(() => cleanup());
beforeAll(async () => {
  await loadMarkdown();
});

const URL = 'https://example.com/a/very/long/path/that/goes/on/and/on/forever/index.html?query=1&x=2';
const POEM = 'Roses are red,\nviolets are blue.\nSugar is sweet.';
const CODE = '```python\ndef f():\n        return compute(first_argument, second_argument, third_argument, fourth)\n```';

describe('Markdown answers on a terminal', () => {
  it('keeps a single line break inside a paragraph (poems, addresses)', () => {
    const lines = renderMarkdown(POEM, 60, false).split('\n');
    expect(lines).toEqual(['Roses are red,', 'violets are blue.', 'Sugar is sweet.']);
  });

  it('never splits a URL: it gets a line of its own and may run past the width', () => {
    const out = renderMarkdown(`See ${URL} for more, and [the docs](${URL}#docs).`, 40, false);
    const lines = out.split('\n');
    expect(lines).toContain(URL);
    expect(out).toContain(`(${URL}#docs)`);
    // Every other line still fits.
    for (const line of lines) if (!line.includes('https://')) expect(line.length).toBeLessThanOrEqual(40);
  });

  it('wraps a long code line with its continuation at the same indentation', () => {
    const lines = renderMarkdown(CODE, 40, false).split('\n').filter((l) => l.trim());
    const start = lines.findIndex((l) => l.includes('return'));
    const indent = /^ */.exec(lines[start]!)![0].length;
    expect(indent).toBeGreaterThan(4);
    expect(lines.length - start).toBeGreaterThan(1);
    for (const line of lines.slice(start)) {
      expect(line.length).toBeLessThanOrEqual(40);
      expect(/^ */.exec(line)![0].length).toBe(indent);
    }
    expect(lines.slice(start).map((l) => l.trim()).join(' ')).toBe('return compute(first_argument, second_argument, third_argument, fourth)');
  });

  it('Ink draws the finished answer without splitting the URL again', () => {
    const { lastFrame } = render(
      <Box width={40}>
        <StaticEntry item={{ id: 1, kind: 'answer', text: `${POEM}\n\nSee ${URL} now.` }} width={40} color={false} />
      </Box>,
    );
    const frame = lastFrame() ?? '';
    expect(frame).toContain(URL);
    expect(frame).toContain('violets are blue.\n');
  });
});
