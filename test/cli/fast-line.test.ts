// The plain one-shot's command line read without commander (src/cli/fast-line.ts) against commander's own
// reading of the same line (commander-program.ts, as main.ts runs it): for every generated line the fast
// reader either declines it or gives exactly commander's opts(), value sources and prompt words. The lines
// are built from the option table both read, so an option added there is exercised here at once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readWithCommander, type App } from '../../src/cli/commander-program.js';
import { readPlainLine } from '../../src/cli/fast-line.js';
import { chatOptionRows, flagShape } from '../../src/cli/option-table.js';
import { createRootCommand, type RawChatOptions } from '../../src/cli/program.js';
import type { OptionSources } from '../../src/cli/flags.js';

const ROOT_ROWS = chatOptionRows({ oneShot: true, saved: true });
const SHAPES = ROOT_ROWS.map((row) => ({ row, ...flagShape(row.flags) }));
/** Every key commander could set on the root command, --version and --help included. */
const ATTRIBUTES = [...new Set([...SHAPES.map((s) => s.attribute), 'version', 'help'])];

interface Reading {
  options: RawChatOptions;
  sources: Record<string, string | undefined>;
  prompt: string[];
}

const sourcesOf = (sources: OptionSources) => Object.fromEntries(ATTRIBUTES.map((name) => [name, sources.getOptionValueSource(name)]));

/** Commander's reading, as main.ts gets it: the root's action with its options, or none (an error, help, a subcommand). */
async function viaCommander(args: string[]): Promise<Reading | undefined> {
  let reading: Reading | undefined;
  const app = {
    io: {},
    runRoot: async (options: RawChatOptions, sources: OptionSources, prompt: string[]) => {
      reading = { options: { ...options }, sources: sourcesOf(sources), prompt };
      return 0;
    },
    runChatOrOneShot: async () => 0,
    runChat: async () => 0,
    setVerbose: () => {},
  } as unknown as App;
  let action;
  try {
    action = await readWithCommander(args, app);
  } catch {
    return undefined;
  }
  if (typeof action === 'function') await action();
  return reading;
}

function viaFastLine(args: string[]): Reading | undefined {
  const line = readPlainLine(args);
  return line && { options: { ...line.options }, sources: sourcesOf(line), prompt: line.prompt };
}

/** A small deterministic generator (mulberry32), so a failing line is the same on every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALUES = ['--help', '-h', 'chat', 'v', 'two words', '', '-', '-x', '--json', '-m', '--no-save', '-5', '1.5', 'a=b', '=', 'echo', '--modle', '-qv'];
const WORDS = ['hello', 'two words', '-', 'a=b', '', 'x', '-5', 'chat', 'help', '-qv', '--modle', '--version', '--', '-h', '-mecho', '--json=1', '--no-json', '-z', '__complete', '--help', '-vh', '--he', 'history'];

/** Every way a line may name one option: long, short, --long=value; the value from VALUES. */
function optionWords(pick: <T>(items: readonly T[]) => T): string[] {
  const shape = pick(SHAPES);
  const forms: string[][] = [[shape.long]];
  if (shape.short) forms.push([shape.short]);
  const value = pick(VALUES);
  if (!shape.takesValue) return pick(forms);
  return pick([...forms.map((form) => [...form, value]), [`${shape.long}=${value}`]]);
}

function generatedLines(count: number, seed: number): string[][] {
  const next = random(seed);
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const lines: string[][] = [];
  for (let n = 0; n < count; n++) {
    const line: string[] = [];
    const groups = Math.floor(next() * 7);
    for (let g = 0; g < groups; g++) {
      const r = next();
      if (r < 0.6) line.push(...optionWords(pick));
      else if (r < 0.9) line.push(pick(WORDS.slice(0, 6)));
      else line.push(pick(WORDS));
    }
    // Repeat an option now and then: repeatable ones add up, others take the last.
    if (line.length > 0 && next() < 0.3) line.push(...optionWords(pick));
    lines.push(line);
  }
  return lines;
}

/** Each option alone, twice, and with its negation or positive, in each of its forms. */
function systematicLines(): string[][] {
  const lines: string[][] = [];
  for (const shape of SHAPES) {
    const uses = shape.takesValue
      ? [[shape.long, 'one'], ...(shape.short ? [[shape.short, '-two']] : []), [`${shape.long}=th=ree`], [`${shape.long}=`]]
      : [[shape.long], ...(shape.short ? [[shape.short]] : [])];
    for (const use of uses) {
      lines.push([...use, 'prompt'], ['before', ...use], ['a', ...use, 'b', ...use]);
    }
    const other = shape.negate ? `--${shape.long.slice(5)}` : `--no-${shape.long.slice(2)}`;
    if (SHAPES.some((s) => s.long === other)) lines.push([shape.long, other, 'p'], [other, shape.long, 'p']);
  }
  return lines;
}

describe('fast-line.ts reads a plain one-shot line as commander does', () => {
  beforeEach(() => {
    // Commander prints help and errors for the lines it refuses: not this test's output.
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("the table's flags read as commander reads them (short, long, value, negation, key)", () => {
    const root = createRootCommand();
    const own = root.options.filter((o) => o.long !== '--version' && o.long !== '--help');
    expect(own.map((o) => ({ short: o.short, long: o.long, takesValue: o.required, negate: o.negate, attribute: o.attributeName() }))).toEqual(
      SHAPES.map((s) => ({ short: s.short, long: s.long, takesValue: s.takesValue, negate: s.negate, attribute: s.attribute })),
    );
  });

  it('the benchmark line and other plain lines are read without commander', async () => {
    const plain = [
      ['--base-url', 'http://127.0.0.1:1/v1', '-m', 'lorem-2000', '--no-save', 'bench'],
      ['-m', 'a', '-m', 'b', '-o', 'top_p=0.9', '-H', 'X-A: 1', 'compare', 'this'],
      ['--no-stream', '--stream', '-s', '-not an option', '--json', 'words'],
      ['-a', '-', 'what', '-', 'is', 'this'],
      [],
    ];
    for (const args of plain) {
      const fast = viaFastLine(args);
      expect(fast, args.join(' ')).toBeDefined();
      expect(fast).toEqual(await viaCommander(args));
    }
  });

  it('declines what only commander should answer', () => {
    for (const args of [['--version'], ['-h'], ['x', '--help'], ['chat'], ['--', 'history'], ['-qv'], ['-mecho'], ['--modle', 'x'], ['-m'], ['--json=1'], ['__complete', '--', ''], ['-5']]) {
      expect(readPlainLine(args), args.join(' ')).toBeUndefined();
    }
  });

  it('gives exactly what commander gives, or declines, for every generated line', async () => {
    const lines = [...systematicLines(), ...generatedLines(3000, 15)];
    let read = 0;
    for (const args of lines) {
      const fast = viaFastLine(args);
      if (fast === undefined) continue;
      read++;
      expect(fast, JSON.stringify(args)).toEqual(await viaCommander(args));
    }
    // Most lines are plain (every option is one the fast reader knows): declining them all would pass the loop above.
    expect(read).toBeGreaterThan(lines.length / 3);
  });
});
