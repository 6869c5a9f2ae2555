// /attach of a directory in the chat (SPEC §20): a link that leaves it is skipped and named in one notice,
// in the Ink chat and in the line chat of TERM=dumb alike; what is sent holds none of its target.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

describeInTerminal('/attach of a directory with links that leave it', () => {
  const ctx = useGatewayAndTerminals();

  function repoWithLinks(): string {
    const repo = join(ctx.user.home, 'repo');
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, 'readme.md'), 'read me\n');
    writeFileSync(join(repo, '.env'), 'SECRET=LEAKED-1\n');
    writeFileSync(join(ctx.user.home, 'outside.json'), '{"api-key":"sk-LEAKED-2"}\n');
    symlinkSync('.env', join(repo, 'config.txt'));
    symlinkSync(join(ctx.user.home, 'outside.json'), join(repo, 'notes.md'));
    return repo;
  }

  for (const [name, term, ready] of [['Ink chat', 'xterm-256color', 'Ask anything'], ['line chat (TERM=dumb)', 'dumb', '›']] as const) {
    it(`${name}: one notice names the skipped links; the message goes without them`, async () => {
      const repo = repoWithLinks();
      const s = ctx.launch(['chat', '--base-url', ctx.gateway.url, '-m', 'echo', '--no-save'], { env: { TERM: term } });
      await s.waitForText(ready);
      s.submit(`/attach ${repo}`);
      await s.waitForText(`skipped 2 links that leave ${repo}/: config.txt, notes.md`);
      s.submit('review');
      await s.waitFor(() => ctx.gateway.requests.length === 1, 'the request');
      const sent = JSON.stringify(ctx.gateway.requests[0]!.body);
      expect(sent).toContain('read me');
      expect(sent).not.toContain('LEAKED');
    });
  }
});
