// `gatechat completion bash|zsh|fish` (SPEC §14): each script is loaded into the real shell, which
// then completes real command lines by calling the built binary back (on PATH as `gatechat`).
// bash always; zsh and fish where installed (.ci/run installs them).
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { binPath, runCli } from '../helpers/cli.js';

const run = promisify(execFile);
const ctx = useGatewayAndUser({ userPer: 'file' });

function installed(shell: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${shell}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** PATH with a `gatechat` that runs the built binary, as an installed package would provide. */
function pathWithGatechat(): string {
  const dir = join(ctx.user.home, 'bin');
  mkdirSync(dir, { recursive: true });
  const launcher = join(dir, 'gatechat');
  writeFileSync(launcher, `#!/bin/sh\nexec '${process.execPath}' '${binPath}' "$@"\n`);
  chmodSync(launcher, 0o755);
  return `${dir}:${process.env.PATH}`;
}

let env: Record<string, string>;

beforeEach(async () => {
  if (env) return;
  env = { ...ctx.user.env(), PATH: pathWithGatechat() };
  const steps = [
    ['config', 'set', '--profile', 'work', 'base-url', 'https://work.example/v1'],
    ['config', 'set', '--profile', 'home-lab', 'model', 'echo'],
    ['config', 'set', '--model', 'fast', 'model', 'vendor/fast-1'],
    ['config', 'set', '--model', 'fable:beta', 'model', 'vendor/fable-2'],
    // Fills the model cache that completion reads.
    ['models', '--base-url', ctx.base],
  ];
  for (const args of steps) {
    const result = await runCli(args, { env });
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  }
});

/** What each shell offers for `line` (the cursor at its end). */
const shells = {
  async bash(line: string): Promise<string[]> {
    const script = `source <(gatechat completion bash)
COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}
_gatechat_complete
printf '%s\\n' "\${COMPREPLY[@]}"`;
    const { stdout } = await run('bash', ['-c', script], { env });
    return stdout.split('\n').filter(Boolean);
  },
  async zsh(line: string): Promise<string[]> {
    // zsh completion builtins work only inside the line editor: compadd and _files are recorded
    // instead; everything else is the real script in the real zsh.
    const script = `compadd() { while [[ $1 != -- ]]; do shift; done; shift; printf '%s\\n' "$@"; }
_files() { print -r -- :files; }
source <(gatechat completion zsh)
words=(\${(z)1}); [[ $1 == *' ' ]] && words+=('')
CURRENT=\${#words}
_gatechat`;
    const { stdout } = await run('zsh', ['-f', '-c', script, 'zsh', line], { env });
    return stdout.split('\n').filter(Boolean);
  },
  async fish(line: string): Promise<string[]> {
    const { stdout } = await run('fish', ['--no-config', '-c', `gatechat completion fish | source; complete -C ${JSON.stringify(line).replace(/\$/g, '\\$')}`], { env });
    return stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!);
  },
};

for (const shell of ['bash', 'zsh', 'fish'] as const) {
  describe.skipIf(!installed(shell))(`${shell}`, () => {
    const complete = shells[shell];

    it('commands, and subcommands of config', { timeout: 60_000 }, async () => {
      expect(await complete('gatechat ')).toEqual(['batch', 'chat', 'completion', 'config', 'demo', 'help', 'history', 'models', 'serve', 'template', 'tools', 'usage']);
      expect(await complete('gatechat co')).toEqual(['completion', 'config']);
      expect(await complete('gatechat config ')).toEqual(['get', 'list', 'path', 'set', 'unset']);
      expect(await complete('gatechat config set api-')).toEqual(['api-key', 'api-key-cmd']);
      expect(await complete('gatechat completion ')).toEqual(['bash', 'fish', 'zsh']);
      // history's actions are words, `compact` a subcommand with options of its own: both offered.
      expect(await complete('gatechat history ')).toEqual(['compact', 'fork', 'list', 'rm', 'show']);
      expect(await complete('gatechat history compact --')).toEqual(expect.arrayContaining(['--model', '--base-url', '--json']));
    });

    it('options of the command being typed, and their fixed values', { timeout: 60_000 }, async () => {
      const root = await complete('gatechat --');
      for (const option of ['--model', '--proxy', '--profile', '--json', '--no-stream', '--help']) expect(root).toContain(option);
      expect(await complete('gatechat --pro')).toEqual(['--profile', '--proxy']);
      expect(await complete('gatechat models --')).toEqual(expect.arrayContaining(['--json', '--base-url']));
      expect(await complete('gatechat models --')).not.toContain('--temperature');
      expect(await complete('gatechat --api ')).toEqual(['chat', 'messages']);
    });

    it('profile names, aliases and cached model ids', { timeout: 60_000 }, async () => {
      expect(await complete('gatechat -p ')).toEqual(['home-lab', 'work']);
      expect(await complete('gatechat chat --profile w')).toEqual(['work']);
      const models = await complete('gatechat -m ');
      // aliases and their targets from config, ids from the cache `gatechat models` wrote
      for (const name of ['fast', 'vendor/fast-1', 'fable:beta', 'echo', 'lorem-200']) expect(models, name).toContain(name);
      expect(await complete('gatechat -v --model fas')).toEqual(['fast']);
      expect(await complete('gatechat chat --model=vendor/fas')).toEqual(shell === 'bash' ? ['vendor/fast-1'] : ['--model=vendor/fast-1']);
    });

    it('an id with a colon completes whole', { timeout: 60_000 }, async () => {
      // bash splits words at ':' (COMP_WORDBREAKS); the script hands back only the part after it.
      const offered = await complete('gatechat -m fable:');
      expect(offered).toEqual([shell === 'bash' ? 'beta' : 'fable:beta']);
    });
  });
}

describe('completion command', () => {
  it('an unknown shell is a usage error naming the choices', async () => {
    const result = await runCli(['completion', 'tcsh'], { env: ctx.user.env() });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('gatechat: completion: expected bash, zsh or fish, got "tcsh"');
    expect(result.stdout).toBe('');
  });
});
