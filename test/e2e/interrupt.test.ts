// SIGINT and SIGTERM in one-shot: the request is aborted, what arrived stays on stdout, the exit code
// is 130 / 143, and the saved conversation holds the partial answer marked cancelled.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';

const ctx = useGatewayAndUser({ userPer: 'file' });

function interruptAfterFirstWords(signal: NodeJS.Signals) {
  return (child: import('node:child_process').ChildProcess) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.trim().split(/\s+/).length >= 3 && !child.killed) child.kill(signal);
    });
  };
}

describe('signals in one-shot', () => {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    for (const api of ['chat', 'messages']) {
      it(`${signal} on ${api}: exit ${code}, partial text kept on stdout and recorded as cancelled`, async () => {
        const result = await runCli(['--base-url', `${ctx.gateway.url}/v1`, '-m', 'slow-100', '--api', api, 'go'], {
          env: ctx.user.env(),
          onSpawn: interruptAfterFirstWords(signal),
        });
        expect(result.code, result.stderr).toBe(code);
        const words = result.stdout.trim().split(/\s+/);
        expect(words.length).toBeGreaterThanOrEqual(3);
        expect(words.length).toBeLessThan(50);
        expect(result.stderr).toMatch(signal === 'SIGINT' ? /interrupted/ : /terminated/);

        const dir = join(ctx.user.dataDir, 'conversations');
        const newest = readdirSync(dir).sort().at(-1)!;
        const records = readFileSync(join(dir, newest), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
        const answer = records.at(-1);
        expect(answer.type).toBe('assistant');
        expect(answer.status).toBe('cancelled');
        expect(result.stdout.trimEnd()).toBe(answer.content.trimEnd());
      });
    }
  }
});
