import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../exit-codes.js';
import { checkBodyField, parseModel } from '../config/keys.js';
import { LineBits } from './line-bits.js';

/** One prompt of a batch, validated (SPEC §13). `id` is the input's, else the line number. */
export interface BatchItem {
  line: number;
  id: string | number;
  prompt: string;
  system?: string;
  model?: string;
  temperature?: number;
  maxTokens?: number;
  attach?: string[];
  schema?: unknown;
  options?: Record<string, unknown>;
}

export type ParsedLine =
  | { kind: 'item'; item: BatchItem }
  | { kind: 'blank'; line: number }
  | { kind: 'invalid'; line: number; id: string | number; message: string };

export interface RawLine {
  /** 1-based, counting every physical line (blank ones too), as an editor shows it. */
  number: number;
  text: string;
  /** The line was longer than the cap; `text` is empty. */
  tooLong: boolean;
}

/** A prompt may be as large as piped stdin may (SPEC §1); a longer line is malformed, not buffered. */
export const MAX_LINE_CHARS = 8 * 1024 * 1024;

/**
 * Splits decoded chunks into RawLines, synchronously and one line at a time (a chunk's lines are not
 * made ahead of their reader: they would outlive scavenges): what readLines() and BatchLineReader share.
 */
class LineSplitter {
  // Stryker disable next-line StringLiteral: StringDecoder('') is UTF-8 too (the default)
  readonly #decoder = new StringDecoder('utf8');
  /** The chunk being split, and where its next line starts. */
  #text = '';
  #start = 0;
  #pending = '';
  #tooLong = false;
  #number = 0;

  constructor(private readonly maxChars: number) {}

  /** The next chunk; the previous one was split to its end (next() gave undefined). */
  feed(chunk: Buffer | string): void {
    this.#text = typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    this.#start = 0;
  }

  /** The chunk's next whole line, else undefined (its rest waits for the next chunk's start). */
  next(): RawLine | undefined {
    const text = this.#text;
    const nl = text.indexOf('\n', this.#start);
    if (nl < 0) {
      if (!this.#tooLong) this.#pending += text.slice(this.#start);
      if (this.#pending.length > this.maxChars) {
        this.#tooLong = true;
        // Stryker disable next-line StringLiteral: only frees the memory; a too-long line's text is never used (take() gives '')
        this.#pending = '';
      }
      this.#text = '';
      this.#start = 0;
      return undefined;
    }
    const piece = text.slice(this.#start, nl);
    this.#start = nl + 1;
    const line = this.#take(this.#pending ? this.#pending + piece : piece);
    this.#pending = '';
    return line;
  }

  /** The input ended: its last line if it had no newline. */
  end(): RawLine | undefined {
    this.#pending += this.#decoder.end();
    return this.#pending || this.#tooLong ? this.#take(this.#pending) : undefined;
  }

  #take(text: string): RawLine {
    this.#number++;
    const line = { number: this.#number, text: this.#tooLong ? '' : text.endsWith('\r') ? text.slice(0, -1) : text, tooLong: this.#tooLong };
    this.#tooLong = false;
    return line;
  }
}

/**
 * Lines of a stream, pulled one chunk at a time (backpressure comes free: nothing is read ahead of
 * the consumer), so a 100 000-line file costs the memory of one chunk and one line.
 */
export async function* readLines(input: AsyncIterable<Buffer | string>, maxChars = MAX_LINE_CHARS): AsyncGenerator<RawLine> {
  const splitter = new LineSplitter(maxChars);
  for await (const chunk of input) {
    splitter.feed(chunk);
    for (let line = splitter.next(); line !== undefined; line = splitter.next()) yield line;
  }
  const last = splitter.end();
  if (last) yield last;
}

const FIELDS = ['id', 'prompt', 'system', 'model', 'temperature', 'max_tokens', 'attach', 'schema', 'options'] as const;

class LineError extends Error {}

function fail(message: string): never {
  throw new LineError(message);
}

/**
 * One input line: a JSON string (the prompt) or an object with the §13 fields. Unknown fields are
 * refused, so a typo (`"promt"`) is named instead of silently sending an empty prompt.
 */
export function parseBatchLine(raw: RawLine): ParsedLine {
  const { number } = raw;
  if (raw.tooLong) return { kind: 'invalid', line: number, id: number, message: `longer than ${MAX_LINE_CHARS / 1024 / 1024} MiB` };
  const text = number === 1 ? raw.text.replace(/^\uFEFF/, '') : raw.text;
  if (text.trim() === '') return { kind: 'blank', line: number };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', line: number, id: number, message: `not JSON: ${(error as Error).message}` };
  }
  let id: string | number = number;
  try {
    if (typeof value === 'string') return { kind: 'item', item: { line: number, id, prompt: checkPrompt(value) } };
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      fail('expected a JSON string (the prompt) or an object with "prompt"');
    }
    const obj = value as Record<string, unknown>;
    if (obj.id !== undefined) id = checkId(obj.id);
    const unknown = Object.keys(obj).filter((key) => !(FIELDS as readonly string[]).includes(key));
    if (unknown.length) fail(`unknown field ${JSON.stringify(unknown[0])} (fields: ${FIELDS.join(', ')})`);
    const item: BatchItem = { line: number, id, prompt: checkPrompt(obj.prompt) };
    if (obj.system !== undefined) item.system = checkString(obj.system, 'system');
    if (obj.model !== undefined) item.model = checkModel(obj.model);
    if (obj.temperature !== undefined) item.temperature = checkTemperature(obj.temperature);
    if (obj.max_tokens !== undefined) item.maxTokens = checkMaxTokens(obj.max_tokens);
    if (obj.attach !== undefined) item.attach = checkAttach(obj.attach);
    if (obj.schema !== undefined) item.schema = checkSchema(obj.schema);
    if (obj.options !== undefined) item.options = checkOptions(obj.options);
    return { kind: 'item', item };
  } catch (error) {
    if (error instanceof LineError) return { kind: 'invalid', line: number, id, message: error.message };
    throw error;
  }
}

function checkPrompt(value: unknown): string {
  if (value === undefined) fail('missing "prompt"');
  if (typeof value !== 'string') fail('"prompt" must be a string');
  if (value.trim() === '') fail('empty prompt');
  return value;
}

function checkId(value: unknown): string | number {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  fail('"id" must be a non-empty string or an integer');
}

function checkString(value: unknown, field: string): string {
  if (typeof value !== 'string') fail(`"${field}" must be a string`);
  return value;
}

function checkModel(value: unknown): string {
  const text = checkString(value, 'model');
  return usage(() => parseModel(text, '"model"'));
}

function checkTemperature(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail('"temperature" must be a number ≥ 0');
  return value;
}

function checkMaxTokens(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) fail('"max_tokens" must be a whole number ≥ 1');
  return value;
}

function checkAttach(value: unknown): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.some((path) => typeof path !== 'string' || path === '')) {
    fail('"attach" must be a path or an array of paths');
  }
  return list as string[];
}

function checkSchema(value: unknown): unknown {
  if (typeof value === 'string' ? value.trim() === '' : typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail('"schema" must be a JSON Schema object or a string (a path or a field list)');
  }
  return value;
}

function checkOptions(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('"options" must be a JSON object of request body fields');
  // The same rule as -o: fields gatechat builds itself are refused.
  for (const key of Object.keys(value)) usage(() => checkBodyField(key, '"options"'));
  return value as Record<string, unknown>;
}

/** A shared parser's UsageError becomes this line's error. */
function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof UsageError) fail(error.message);
    throw error;
  }
}

/** The key an id is matched by when resuming: "7" and 7 are different ids. */
export function idKey(id: string | number): string {
  return typeof id === 'number' ? `#${id}` : `"${id}`;
}

/**
 * Ids must be unique, or the output and a resume could not tell two lines apart. A line without an id
 * has its number as id, so an explicit `{"id":3}` on another line repeats line 3 just as two equal
 * explicit ids do. Lines whose id is their own number (most of a 100 000-line input) are kept as one
 * bit each, not in the map: the check stays small however long the input.
 */
export class DuplicateIds {
  /** Ids that are not their own line's number, with the line that used each first. */
  private readonly seen = new Map<string, number>();
  /** Lines whose id is their own number. */
  private readonly ownNumbers = new LineBits();

  /** The line that already used this item's id, or null. */
  check(item: BatchItem): number | null {
    if (item.id === item.line) {
      // An earlier line may have named this number explicitly.
      const earlier = this.seen.get(idKey(item.id));
      if (earlier !== undefined) return earlier;
      this.ownNumbers.add(item.line);
      return null;
    }
    const key = idKey(item.id);
    const earlier = this.seen.get(key);
    if (earlier !== undefined) return earlier;
    // Only a positive whole number can be a line's (LineBits answers false for the rest).
    if (typeof item.id === 'number' && item.id >= 1 && this.ownNumbers.has(item.id)) return item.id;
    this.seen.set(key, item.line);
    return null;
  }
}

/** parseBatchLine(), and a repeated explicit id made an invalid line (the later one). */
function parseUnique(raw: RawLine, ids: DuplicateIds): ParsedLine {
  const parsed = parseBatchLine(raw);
  if (parsed.kind === 'item') {
    const earlier = ids.check(parsed.item);
    if (earlier !== null) return { kind: 'invalid', line: parsed.item.line, id: parsed.item.id, message: `id ${JSON.stringify(parsed.item.id)} repeats line ${earlier}` };
  }
  return parsed;
}

/** Parses lines and turns a repeated explicit id into an invalid line (the later one). */
export async function* parseBatchLines(lines: AsyncIterable<RawLine>): AsyncGenerator<ParsedLine> {
  const ids = new DuplicateIds();
  for await (const raw of lines) yield parseUnique(raw, ids);
}

/** Parsed lines, and where the source can, the next one already read without a wait (BatchLineReader). */
export interface ParsedLineSource extends AsyncIterable<ParsedLine> {
  take?(): ParsedLine | undefined;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/**
 * parseBatchLines(readLines(input)) without two async generator levels per line: the lines of a chunk
 * already read are taken synchronously (take()), and next() reads on only when none is left — one read
 * at a time, however many callers wait for it. Each line is split and parsed when it is taken. A batch's workers
 * took every line through a generator step per level and a wrapper promise, a visible share of its
 * promise jobs per prompt.
 */
export class BatchLineReader implements AsyncIterableIterator<ParsedLine>, ParsedLineSource {
  readonly #input: AsyncIterator<Buffer | string>;
  readonly #splitter: LineSplitter;
  readonly #ids = new DuplicateIds();
  /** The input's last line when it had no newline, once the input ended. */
  #last: RawLine | undefined;
  #ended = false;
  #reading: Promise<void> | null = null;

  constructor(input: AsyncIterable<Buffer | string>, maxChars = MAX_LINE_CHARS) {
    this.#input = input[Symbol.asyncIterator]();
    this.#splitter = new LineSplitter(maxChars);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next line if its chunk was read already, else undefined (next() reads on). */
  take(): ParsedLine | undefined {
    let raw = this.#splitter.next();
    if (raw === undefined && this.#last !== undefined) {
      raw = this.#last;
      this.#last = undefined;
    }
    return raw === undefined ? undefined : parseUnique(raw, this.#ids);
  }

  next(): Promise<IteratorResult<ParsedLine>> {
    const line = this.take();
    if (line !== undefined) return Promise.resolve({ value: line, done: false });
    if (this.#ended) return Promise.resolve(DONE);
    this.#reading ??= this.#read();
    return this.#reading.then(() => this.next());
  }

  async #read(): Promise<void> {
    try {
      const step = await this.#input.next();
      if (step.done) {
        this.#ended = true;
        this.#last = this.#splitter.end();
      } else {
        this.#splitter.feed(step.value);
      }
    } catch (error) {
      // As from a generator that threw: this caller gets the error, later ones the end.
      this.#ended = true;
      throw error;
    } finally {
      this.#reading = null;
    }
  }
}

export interface InputCheck {
  /** Lines holding a prompt. */
  items: number;
  invalid: number;
  /** The first malformed line, for the one-line error. */
  first?: { line: number; message: string };
}

/**
 * The first pass over a file (SPEC §13): every line checked before anything is sent, one line at a
 * time. `problemOf` adds the checks that depend on settings (e.g. no model anywhere).
 */
export async function checkBatchInput(
  lines: AsyncIterable<RawLine> | BatchLineReader,
  problemOf: (item: BatchItem) => string | null | Promise<string | null>,
): Promise<InputCheck> {
  const check: InputCheck = { items: 0, invalid: 0 };
  const reader = lines instanceof BatchLineReader ? lines : null;
  const source = reader ?? parseBatchLines(lines as AsyncIterable<RawLine>);
  for (;;) {
    // The lines of a chunk already read without a wait each (BatchLineReader.take).
    let parsed = reader?.take();
    if (parsed === undefined) {
      const step = await source.next();
      if (step.done) break;
      parsed = step.value;
    }
    const found = parsed.kind === 'invalid' ? parsed.message : parsed.kind === 'item' ? problemOf(parsed.item) : null;
    const problem = found instanceof Promise ? await found : found;
    if (problem !== null) {
      check.invalid++;
      check.first ??= { line: parsed.kind === 'item' ? parsed.item.line : parsed.line, message: problem };
    } else if (parsed.kind === 'item') check.items++;
  }
  return check;
}
