// Batch input (SPEC §13): lines split at any chunk boundary, each line validated with its number,
// repeated ids refused, the first pass over a file, and the resume reader's tolerance of torn lines.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchLineReader, checkBatchInput, parseBatchLine, parseBatchLines, readLines, type ParsedLine, type RawLine } from '../../src/session/batch-input.js';
import { CompleteIds, readResumeState } from '../../src/session/batch-resume.js';

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

async function* chunks(parts: Array<string | Buffer>) {
  for (const part of parts) yield part;
}

const raw = (text: string, number = 1): RawLine => ({ number, text, tooLong: false });

describe('readLines', () => {
  const text = '"a"\r\n{"prompt":"é ü"}\n\n"last, no newline"';
  const bytes = Buffer.from(text, 'utf8');

  it('gives the same lines whatever the chunk boundaries (UTF-8 split inside a character too)', async () => {
    const whole = await collect(readLines(chunks([bytes])));
    expect(whole.map((l) => [l.number, l.text])).toEqual([
      [1, '"a"'],
      [2, '{"prompt":"é ü"}'],
      [3, ''],
      [4, '"last, no newline"'],
    ]);
    for (let cut = 1; cut < bytes.length; cut++) {
      const split = await collect(readLines(chunks([bytes.subarray(0, cut), bytes.subarray(cut)])));
      expect(split, `cut at ${cut}`).toEqual(whole);
    }
  });

  it('a line over the cap is marked, not buffered, and the next line is read normally', async () => {
    const lines = await collect(readLines(chunks(['x'.repeat(30), 'y'.repeat(30), '\n"ok"\n']), 40));
    expect(lines).toEqual([
      { number: 1, text: '', tooLong: true },
      { number: 2, text: '"ok"', tooLong: false },
    ]);
    expect(parseBatchLine(lines[0])).toMatchObject({ kind: 'invalid', line: 1 });
  });
});

describe('parseBatchLine', () => {
  it('a JSON string is the prompt, its id the line number', () => {
    expect(parseBatchLine(raw('"hello"', 7))).toEqual({ kind: 'item', item: { line: 7, id: 7, prompt: 'hello' } });
  });

  it('an object with every field', () => {
    const line = JSON.stringify({ id: 'q1', prompt: 'p', system: 's', model: 'm', temperature: 0.2, max_tokens: 9, attach: 'f.txt', schema: { type: 'object' }, options: { top_p: 0.5 } });
    expect(parseBatchLine(raw(line, 2))).toEqual({
      kind: 'item',
      item: { line: 2, id: 'q1', prompt: 'p', system: 's', model: 'm', temperature: 0.2, maxTokens: 9, attach: ['f.txt'], schema: { type: 'object' }, options: { top_p: 0.5 } },
    });
  });

  it('blank lines and a BOM on line 1 are not errors', () => {
    expect(parseBatchLine(raw('   ', 3))).toEqual({ kind: 'blank', line: 3 });
    expect(parseBatchLine(raw('\uFEFF"x"', 1))).toMatchObject({ kind: 'item', item: { prompt: 'x' } });
  });

  const bad: Array<[string, RegExp]> = [
    ['{nope', /not JSON/],
    ['42', /expected a JSON string \(the prompt\) or an object/],
    ['[]', /expected a JSON string/],
    ['""', /empty prompt/],
    ['{"id":"a"}', /missing "prompt"/],
    ['{"prompt":3}', /"prompt" must be a string/],
    ['{"prompt":"p","promt":"x"}', /unknown field "promt"/],
    ['{"prompt":"p","id":""}', /"id" must be a non-empty string or an integer/],
    ['{"prompt":"p","id":1.5}', /"id" must be/],
    ['{"prompt":"p","model":"two words"}', /no spaces/],
    ['{"prompt":"p","temperature":"hot"}', /"temperature" must be a number ≥ 0/],
    ['{"prompt":"p","max_tokens":0}', /"max_tokens" must be a whole number ≥ 1/],
    ['{"prompt":"p","attach":[]}', /"attach" must be a path or an array of paths/],
    ['{"prompt":"p","schema":[]}', /"schema" must be/],
    ['{"prompt":"p","options":{"stream":false}}', /"options": stream is built by gatechat/],
    ['{"prompt":"p","options":"x"}', /"options" must be a JSON object/],
  ];
  it.each(bad)('%s is invalid: %s', (text, message) => {
    const parsed = parseBatchLine(raw(text, 4));
    expect(parsed.kind).toBe('invalid');
    if (parsed.kind === 'invalid') {
      expect(parsed.line).toBe(4);
      expect(parsed.message).toMatch(message);
    }
  });

  it('an invalid object line keeps its own id when it has a usable one', () => {
    expect(parseBatchLine(raw('{"id":"z","prompt":""}', 5))).toMatchObject({ kind: 'invalid', id: 'z', line: 5 });
  });
});

describe('parseBatchLines and checkBatchInput', () => {
  const text = ['"a"', '{"id":"x","prompt":"b"}', '{"id":"x","prompt":"c"}', '', '{"prompt":"d","model":"m"}'].join('\n');

  it('a repeated explicit id makes the later line invalid, naming the earlier one', async () => {
    const parsed = await collect(parseBatchLines(readLines(chunks([text]))));
    expect(parsed[2]).toEqual({ kind: 'invalid', line: 3, id: 'x', message: 'id "x" repeats line 2' });
  });

  it('a line number is an id too: an explicit id that is another line\'s number repeats that line, either way round', async () => {
    const ids = async (lines: string[]) =>
      (await collect(parseBatchLines(readLines(chunks([lines.join('\n')]))))).map((p) => (p.kind === 'invalid' ? p.message : p.kind === 'item' ? p.item.id : p.kind));
    // Line 1's id is 1 (its number); a later {"id":1} would be written and resumed as the same line.
    expect(await ids(['"a"', '"b"', '{"id":1,"prompt":"c"}'])).toEqual([1, 2, 'id 1 repeats line 1']);
    // An explicit id equal to its own line number, then the same id again.
    expect(await ids(['"a"', '"b"', '{"id":3,"prompt":"c"}', '{"id":3,"prompt":"d"}'])).toEqual([1, 2, 3, 'id 3 repeats line 3']);
    // An explicit id that a later line's number takes.
    expect(await ids(['{"id":3,"prompt":"a"}', '"b"', '"c"'])).toEqual([3, 2, 'id 3 repeats line 1']);
    // Numbers and strings are different ids; an id equal to its own line is no repeat of itself.
    expect(await ids(['{"id":"1","prompt":"a"}', '{"id":2,"prompt":"b"}', '"c"'])).toEqual(['1', 2, 3]);
    // Ids no line has (0, past the input's length, beyond 2³²) are only ever explicit ones.
    expect(await ids(['"a"', '{"id":4294967297,"prompt":"b"}', '{"id":0,"prompt":"c"}', '{"id":9000,"prompt":"d"}'])).toEqual([1, 4294967297, 0, 9000]);
  });

  it('counts prompts and reports the first malformed line with the number of others', async () => {
    const check = await checkBatchInput(readLines(chunks([text])), (item) => (item.model ? null : 'no model'));
    expect(check).toEqual({ items: 1, invalid: 3, first: { line: 1, message: 'no model' } });
    const clean = await checkBatchInput(readLines(chunks([text.replace('"id":"x","prompt":"c"', '"id":"y","prompt":"c"')])), () => null);
    expect(clean).toEqual({ items: 4, invalid: 0 });
  });
});

describe('readResumeState', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('collects complete ids only, ignores torn or foreign lines, and says when the file ends mid-line', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatechat-resume-'));
    const path = join(dir, 'out.jsonl');
    writeFileSync(
      path,
      [
        '{"id":1,"status":"complete"}',
        '{"id":"1","status":"error"}',
        '{"id":"b","status":"complete"}',
        'garbage',
        '{"status":"complete"}',
        '{"id":"c","status":"cancelled"}',
        '{"id":"d","te',
      ].join('\n'),
    );
    const state = await readResumeState(path);
    expect([...state.complete].sort()).toEqual(['"b', '#1']);
    expect(state.endsMidLine).toBe(true);
    expect(state.unreadable).toBe(3);
    writeFileSync(path, '{"id":1,"status":"complete"}\n');
    expect((await readResumeState(path)).endsMidLine).toBe(false);
    expect((await readResumeState(join(dir, 'missing.jsonl'))).complete.size).toBe(0);
  });

  it('a missing or empty output file: nothing done, and the first line starts the file (no blank line)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatechat-resume-'));
    const fresh = { complete: new CompleteIds(), endsMidLine: false, unreadable: 0 };
    expect(await readResumeState(join(dir, 'missing.jsonl'))).toEqual(fresh);
    writeFileSync(join(dir, 'empty.jsonl'), '');
    expect(await readResumeState(join(dir, 'empty.jsonl'))).toEqual(fresh);
  });

  it('refuses a directory as the output file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatechat-resume-'));
    await expect(readResumeState(dir)).rejects.toThrow(`--output: ${dir} is not a regular file`);
  });
});

describe('BatchLineReader: parseBatchLines(readLines()) with a line already read taken at once', () => {
  const lines = ['"a"', '{"id":"x","prompt":"b"}', '', '{"id":"x","prompt":"c"}', 'not json', '{"id":1,"prompt":"d"}', '"é ü"'];
  const bytes = Buffer.from(`${lines.join('\r\n')}\n"last, no newline"`, 'utf8');

  it('gives what parseBatchLines(readLines()) gives, whatever the chunk boundaries, through next() and take() alike', async () => {
    const expected = await collect(parseBatchLines(readLines(chunks([bytes]))));
    expect(expected).toHaveLength(8);
    for (let cut = 1; cut < bytes.length; cut += 3) {
      const parts = [bytes.subarray(0, cut), bytes.subarray(cut)];
      expect(await collect(new BatchLineReader(chunks(parts))), `cut at ${cut}`).toEqual(expected);
      // Taking what is there before each next(), as the batch's workers do.
      const reader = new BatchLineReader(chunks(parts));
      const taken: ParsedLine[] = [];
      for (;;) {
        const ready = reader.take();
        if (ready !== undefined) {
          taken.push(ready);
          continue;
        }
        const step = await reader.next();
        if (step.done) break;
        taken.push(step.value);
      }
      expect(taken, `cut at ${cut}, take()`).toEqual(expected);
    }
  });

  it('callers waiting at once share one read and get the lines in order, each once; then the end', async () => {
    const reader = new BatchLineReader(chunks(['"a"\n"b"\n', '"c"\n']));
    expect(reader.take()).toBeUndefined();
    const steps = await Promise.all([reader.next(), reader.next(), reader.next(), reader.next(), reader.next()]);
    expect(steps.map((step) => (step.done ? 'end' : step.value.kind === 'item' ? step.value.item.prompt : step.value.kind))).toEqual(['a', 'b', 'c', 'end', 'end']);
  });

  it('a failing input rejects the read that met it; after it the lines end', async () => {
    async function* failing() {
      yield '"a"\n';
      throw new Error('EIO');
    }
    const reader = new BatchLineReader(failing());
    expect((await reader.next()).value).toMatchObject({ kind: 'item', item: { prompt: 'a' } });
    await expect(reader.next()).rejects.toThrow('EIO');
    expect(await reader.next()).toEqual({ value: undefined, done: true });
  });

  it('checkBatchInput reads it as it reads raw lines', async () => {
    const text = ['"a"', '{"id":"x","prompt":"b"}', '{"id":"x","prompt":"c"}', '', '{"prompt":"d","model":"m"}'].join('\n');
    const problem = (item: { model?: string }) => (item.model ? null : 'no model');
    expect(await checkBatchInput(new BatchLineReader(chunks([text])), problem)).toEqual(await checkBatchInput(readLines(chunks([text])), problem));
    expect(await checkBatchInput(new BatchLineReader(chunks([text])), async () => null)).toEqual({ items: 3, invalid: 1, first: { line: 3, message: 'id "x" repeats line 2' } });
  });
});
