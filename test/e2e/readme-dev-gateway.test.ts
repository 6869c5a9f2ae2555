// The README's dev-gateway table tells users which exit code each model gives. Rows that say it
// with and without an option ("0 with `--tools`, 4 without") are run here, both ways, through the
// built binary: a claim the binary does not keep fails.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();

interface Claim {
  model: string;
  option: string;
  withIt: number;
  without: number;
}

/** Rows of the table headed `| model | … | gatechat exits |` whose last cell is "N with `--opt`, M without". */
function claims(readme: string): Claim[] {
  const lines = readme.split('\n');
  const header = lines.findIndex((l) => /^\| model \|.*\| gatechat exits \|$/.test(l));
  const out: Claim[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    const said = /^(\d+) with `(--[\w-]+)`, (\d+) without$/.exec(cells.at(-1)!);
    if (!said) continue;
    for (const [, model] of cells[0].matchAll(/`([\w-]+)`/g)) out.push({ model, option: said[2], withIt: Number(said[1]), without: Number(said[3]) });
  }
  return out;
}

/** What each option needs to be given: a value a user would pass. */
function optionArgs(option: string): string[] {
  switch (option) {
    case '--tools': {
      const file = join(ctx.user.home, 'tools.json');
      writeFileSync(file, JSON.stringify([{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }]));
      return ['--tools', file];
    }
    case '--schema':
      return ['--schema', 'title, year int'];
    default:
      throw new Error(`the README claims an exit code with ${option}: give this test a value for it`);
  }
}

describe("README: the dev gateway table's exit codes with and without an option", () => {
  it('each such row holds, both ways', async () => {
    const found = claims(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
    // The rows this was written for are among them (a table the parser misread would check nothing).
    expect(found.map((c) => c.model)).toEqual(expect.arrayContaining(['tool', 'json', 'json-bad']));
    for (const claim of found) {
      const run = (extra: string[]) => runCli(['--base-url', ctx.base, '-m', claim.model, '--no-save', ...extra, 'a film about rain'], { env: ctx.user.env() });
      const withIt = await run(optionArgs(claim.option));
      expect(withIt.code, `-m ${claim.model} ${claim.option}: ${withIt.stderr}`).toBe(claim.withIt);
      const without = await run([]);
      expect(without.code, `-m ${claim.model} without ${claim.option}: ${without.stderr}`).toBe(claim.without);
      // The one line says which model wanted what.
      if (claim.without === 4) expect(without.stderr).toContain(`model '${claim.model}'`);
    }
  });
});
