// SPEC §16 budgets: --max-cost for a run, budget-daily per profile. Checked before each request starts;
// once reached nothing new starts (requests in flight finish), one line names the budget, exit 11.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';

const ctx = useGatewayAndUser();
// echo+cost: 3 words in, 3 out at $3 / $15 per million = $0.000054 a line.
const LINE_USD = (3 * 3 + 3 * 15) / 1e6;
const completions = () => ctx.gateway.requests.filter((r) => r.path.endsWith('/chat/completions')).length;

describe('budgets', () => {
  it('a batch with --max-cost stops starting lines once it is reached and exits 11', async () => {
    const input = Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: i + 1, prompt: `a b ${i}` })).join('\n');
    const output = join(ctx.user.home, 'out.jsonl');
    const result = await runCli(['batch', '-', '--base-url', ctx.base, '-m', 'echo+cost', '--concurrency', '1', '--max-cost', String(LINE_USD * 1.5), '--output', output], {
      stdin: input,
      env: ctx.user.env(),
    });
    expect(result.code, result.stderr).toBe(11);
    // One line under the budget, the second crosses it, no third is started.
    expect(completions()).toBe(2);
    expect(readFileSync(output, 'utf8').trim().split('\n')).toHaveLength(2);
    const summary = result.stderr.trim().split('\n').filter((line) => line.startsWith('gatechat:'));
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatch(/batch: 2 complete in .*\$0\.00011 spent\); exit 11 \(budget reached: --max-cost \$0\.000081, this run spent \$0\.00011; no new request was started\)/);
    // The rerun resumes where the budget stopped it.
    const rerun = await runCli(['batch', '-', '--base-url', ctx.base, '-m', 'echo+cost', '--output', output], { stdin: input, env: ctx.user.env() });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(readFileSync(output, 'utf8').trim().split('\n')).toHaveLength(10);
  });

  it('budget-daily refuses a request once today\'s ledger total reached it: exit 11, nothing sent, the budget named', async () => {
    mkdirSync(ctx.user.configDir, { recursive: true });
    writeFileSync(join(ctx.user.configDir, 'config.json'), JSON.stringify({ 'budget-daily': LINE_USD * 1.5 }));
    const run = () => runCli(['--base-url', ctx.base, '-m', 'echo+cost', 'a b c'], { env: ctx.user.env() });
    expect((await run()).code).toBe(0);
    expect((await run()).code).toBe(0);
    const refused = await run();
    expect(refused.code).toBe(11);
    expect(completions()).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^gatechat: budget reached: budget-daily \$0\.000081, today's spending is \$0\.00011/);
    expect(refused.stderr).toMatch(/gatechat config set budget-daily <usd>/);
  });

  it('--max-cost stops a tool loop between steps', async () => {
    const tools = join(ctx.user.home, 'tools.json');
    writeFileSync(tools, JSON.stringify([{ type: 'function', function: { name: 'shout', parameters: { type: 'object', properties: { text: { type: 'string' } } } }, 'x-command': 'cat' }]));
    const result = await runCli(['--base-url', ctx.base, '--no-save', '-m', 'agent+cost', '--tools', tools, '--allow', 'shout', '--max-cost', '0.000001', 'call shout {"text":"hi"}'], {
      env: ctx.user.env(),
    });
    expect(result.code, result.stderr).toBe(11);
    expect(completions()).toBe(1);
    expect(result.stderr).toMatch(/budget reached: --max-cost \$0\.0000010/);
  });

  it('--max-cost must be an amount > 0: a usage error, nothing sent', async () => {
    for (const value of ['0', '-1', 'lots']) {
      const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '--max-cost', value, 'hi'], { env: ctx.user.env() });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--max-cost/);
    }
    const input = join(ctx.user.home, 'in.jsonl');
    writeFileSync(input, '"hi"\n');
    const remote = await runCli(['batch', input, '--remote', '--output', join(ctx.user.home, 'o.jsonl'), '--base-url', ctx.base, '-m', 'echo', '--max-cost', '1'], { env: ctx.user.env() });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/^gatechat: --max-cost: not with --remote/);
    expect(completions()).toBe(0);
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});
