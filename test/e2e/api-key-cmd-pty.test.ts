// api-key-cmd in a real terminal (SPEC §20): the command can open /dev/tty, so a password manager's unlock
// prompt (pass, gpg's pinentry-curses) asks there and reads what is typed.
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

describeInTerminal('api-key-cmd and the terminal', () => {
  const ctx = useGatewayAndTerminals();

  for (const term of ['xterm-256color', 'dumb']) {
    it(`TERM=${term}: a key command that prompts on /dev/tty gets what is typed there; the key is sent`, async () => {
      const command = `printf 'passphrase for gateway: ' > /dev/tty; read -r secret < /dev/tty; printf 'sk-unlocked-%s\\n' "$secret"`;
      const set = await runCli(['config', 'set', 'api-key-cmd', command], { env: ctx.user.env() });
      expect(set.code, set.stderr).toBe(0);
      const s = ctx.launch(['--base-url', ctx.base, '-m', 'echo', '--no-save', 'unlocked?'], { env: { TERM: term } });
      await s.waitForText('passphrase for gateway:', 15_000);
      s.submit('typed-0042');
      expect(await s.waitForExit(20_000)).toBe(0);
      expect(s.screen()).toContain('unlocked?');
      expect(ctx.gateway.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk-unlocked-typed-0042']);
    });
  }
});
