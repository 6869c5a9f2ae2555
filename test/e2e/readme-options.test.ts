// The README's options tables against `--help` of the built binary, every command found by walking
// the help's own command lists: an option in any help that the README does not name, or names with
// another value form (`--api <api>` vs `--api <chat|messages>`), fails here, and so does a README row
// for an option no command has. Nothing is listed by hand: an option added to the program is
// checked at once, wherever in the README's options tables it is documented.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../helpers/cli.js';
import { disagreements, helpCommands, helpOptions, readmeOptions, type CommandPath, type OptionTerm } from '../helpers/readme-options.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** Every command's options, from `gatechat [path…] --help`, walking each help's Commands section. */
async function allHelp(): Promise<Map<CommandPath, OptionTerm[]>> {
  const found = new Map<CommandPath, OptionTerm[]>();
  const visit = async (path: string[]): Promise<void> => {
    const result = await runCli([...path, '--help'], { timeoutMs: 20_000 });
    expect(result.code, `${path.join(' ')} --help: ${result.stderr}`).toBe(0);
    found.set(path.join(' '), helpOptions(result.stdout));
    for (const name of helpCommands(result.stdout)) await visit([...path, name]);
  };
  await visit([]);
  return found;
}

describe('README options tables and --help agree', () => {
  let help: Map<CommandPath, OptionTerm[]>;

  it('every option of every command is in the README with the value form its --help shows, and nothing else is', async () => {
    help = await allHelp();
    // The walk reached the nested commands and read their options (a parser that read nothing would pass).
    expect(help.get('')!.map((o) => o.term)).toContain('-m, --model <id>');
    expect(help.get('config set')!.length).toBeGreaterThan(1);
    expect(help.get('batch')!.some((o) => o.flags.includes('--concurrency'))).toBe(true);
    expect(readmeOptions(readme).map((r) => r.term)).toContain('-m, --model <id>');
    expect(disagreements(help, readmeOptions(readme))).toEqual([]);
  }, 120_000);

  it('the check fails when the README drops an option, gives it another value form, or names one that does not exist', () => {
    expect(help, 'runs after the test above').toBeDefined();
    const rows = readme.split('\n');
    const rowOf = (text: string) => rows.findIndex((l) => l.startsWith('|') && l.includes(text));
    // Problems an edit of one row adds to those the README has now (none, when the test above passes);
    // rows are replaced, never removed, so the line numbers in the messages stay put.
    const now = disagreements(help, readmeOptions(readme));
    const added = (index: number, replace: (line: string) => string) =>
      disagreements(help, readmeOptions(rows.map((l, i) => (i === index ? replace(l) : l)).join('\n'))).filter((p) => !now.includes(p));

    const noStdin = rowOf('`--no-stdin`');
    expect(noStdin).toBeGreaterThan(0);
    expect(added(noStdin, () => '| (none) | |')).toEqual(['gatechat, gatechat chat, gatechat demo --help: --no-stdin: no README options table names --no-stdin']);

    const api = rowOf('`--api <chat');
    expect(added(api, (l) => l.replace('--api <chat\\|messages>', '--api <api>'))).toEqual([
      expect.stringMatching(/^gatechat, gatechat chat, gatechat demo, gatechat batch --help: --api <chat\|messages>: the README says --api <api> \(line \d+\)$/),
      expect.stringMatching(/^README line \d+: --api <api> is in no command's --help$/),
    ]);

    const concurrency = rowOf('`--concurrency <n>`');
    expect(added(concurrency, (l) => l.replace('--concurrency <n>', '--concurrency N'))).toEqual([
      expect.stringMatching(/^gatechat batch --help: --concurrency <n>: the README says --concurrency N \(line \d+\)$/),
      expect.stringMatching(/^README line \d+: gatechat batch --help has no --concurrency N$/),
    ]);

    expect(added(noStdin, () => '| `--no-such-option` | gone |')).toEqual([
      'gatechat, gatechat chat, gatechat demo --help: --no-stdin: no README options table names --no-stdin',
      `README line ${noStdin + 1}: --no-such-option is in no command's --help`,
    ]);
  });
});
