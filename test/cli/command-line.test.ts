// How the command line is read, through the built binary: options typed before a subcommand apply to
// it or are refused (never dropped), `--` makes the rest a prompt even when it names a command, and an
// unknown option is one line that suggests the closest one, on every command.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();
const cli = (args: string[], stdin?: string) => runCli(args, { env: ctx.user.env(), stdin, timeoutMs: 10_000 });

describe('options before a subcommand', () => {
  it('gatechat --base-url … models asks that gateway', async () => {
    const result = await cli(['--base-url', ctx.base, 'models']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toContain('echo');
    expect(ctx.gateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models']);
  });

  it('gatechat -p work history is refused with one line, not ignored', async () => {
    const result = await cli(['-p', 'work', 'history']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('gatechat: -p, --profile does not apply to "gatechat history" (see: gatechat history --help)\n');
    expect(result.stdout).toBe('');
  });

  it('gatechat -p work config get model reads the profile', async () => {
    expect((await cli(['config', 'set', 'model', 'top-model'])).code).toBe(0);
    expect((await cli(['config', 'set', '--profile', 'work', 'model', 'work-model'])).code).toBe(0);
    const result = await cli(['-p', 'work', 'config', 'get', 'model']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('work-model\n');
  });

  it('gatechat --json history prints JSON', async () => {
    const result = await cli(['--json', 'history']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('[]\n');
  });

  it('an option the subcommand does not have is refused and nothing is sent', async () => {
    const result = await cli(['-m', 'echo', 'models', '--base-url', ctx.base]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('gatechat: -m, --model does not apply to "gatechat models" (see: gatechat models --help)\n');
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('-v before serve is refused, not dropped', async () => {
    const result = await cli(['-v', 'serve', '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('gatechat: -v, --verbose does not apply to "gatechat serve" (see: gatechat serve --help)\n');
  });

  it('the same option after the subcommand wins; repeatable ones add up', async () => {
    const result = await cli(['--base-url', 'http://127.0.0.1:9/v1', '-H', 'X-Before: 1', 'models', '--base-url', ctx.base, '-H', 'X-After: 2']);
    expect(result.code, result.stderr).toBe(0);
    expect(ctx.gateway.requests).toHaveLength(1);
    expect(ctx.gateway.requests[0]!.headers['x-before']).toBe('1');
    expect(ctx.gateway.requests[0]!.headers['x-after']).toBe('2');
  });

  it('chat options before demo apply to it', async () => {
    const result = await cli(['--json', '-m', 'lorem-3', 'demo', 'hi']);
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer.model).toBe('lorem-3');
    expect(answer.text.trim().split(/\s+/)).toHaveLength(3);
  });
});

describe('-- ends the options', () => {
  it('gatechat -- history of rome sends the prompt "history of rome"', async () => {
    const result = await cli(['--base-url', ctx.base, '-m', 'echo', '--no-save', '--', 'history', 'of', 'rome']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('history of rome\n');
    expect((ctx.gateway.requests[0]!.body as { messages: unknown }).messages).toEqual([{ role: 'user', content: 'history of rome' }]);
  });

  it('words after -- that look like options are prompt text too', async () => {
    const result = await cli(['--base-url', ctx.base, '-m', 'echo', '--no-save', '--', 'models', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('models --json\n');
  });

  it('after a subcommand, -- still gives that command its words (chat prompt stays chat)', async () => {
    const result = await cli(['--json', 'demo', '--', 'history', 'of', 'rome']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).text).toBe('history of rome');
  });
});

describe('an unknown option suggests the closest one, in one line, on every command', () => {
  it.each([
    [['--modle', 'echo', 'hi'], "gatechat: unknown option '--modle' (did you mean --model?)\n"],
    [['--no-strem', 'hi'], "gatechat: unknown option '--no-strem' (did you mean --no-stream?)\n"],
    [['--jsonn', 'hi'], "gatechat: unknown option '--jsonn' (did you mean --json or --jsonl?)\n"],
    [['--optoin', 'a=1', 'hi'], "gatechat: unknown option '--optoin' (did you mean --option?)\n"],
    [['chat', '--temprature', '1'], "gatechat: unknown option '--temprature' (did you mean --temperature?)\n"],
    [['demo', '--modle', 'x'], "gatechat: unknown option '--modle' (did you mean --model?)\n"],
    [['models', '--jsn'], "gatechat: unknown option '--jsn' (did you mean --json?)\n"],
    [['models', '--base-ur', 'x'], "gatechat: unknown option '--base-ur' (did you mean --base-url?)\n"],
    [['history', '--jsno'], "gatechat: unknown option '--jsno' (did you mean --json?)\n"],
    [['config', 'list', '--show-secret'], "gatechat: unknown option '--show-secret' (did you mean --show-secrets?)\n"],
    [['config', 'set', '--profle', 'x', 'model', 'y'], "gatechat: unknown option '--profle' (did you mean --profile?)\n"],
    [['config', 'get', '--show-secret', 'model'], "gatechat: unknown option '--show-secret' (did you mean --show-secrets?)\n"],
    [['config', 'unset', '--profil', 'x', 'model'], "gatechat: unknown option '--profil' (did you mean --profile?)\n"],
    [['serve', '--prot', '1'], "gatechat: unknown option '--prot' (did you mean --port?)\n"],
    [['serve', '--api-kye', 'k'], "gatechat: unknown option '--api-kye' (did you mean --api-key?)\n"],
    [['-Z', 'hi'], "gatechat: unknown option '-Z' (see: gatechat --help)\n"],
    [['history', '--model', 'x'], "gatechat: unknown option '--model' (see: gatechat history --help)\n"],
  ])('gatechat %j', async (args, stderr) => {
    const result = await cli(args, '');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(stderr);
    expect(result.stdout).toBe('');
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});

describe('--help lists the options this file covers, with their defaults', () => {
  /** Help text with its wrapping undone, so a test does not depend on the column a line breaks at. */
  const help = async (args: string[]) => {
    const result = await cli([...args, '--help']);
    expect(result.code).toBe(0);
    return result.stdout.replace(/\s+/g, ' ');
  };

  it.each([[[]], [['demo']]])('gatechat %j --help', async (command) => {
    const text = await help(command);
    expect(text).toContain('-o, --option <key=value> extra request body field, repeatable;');
    expect(text).toContain('-x, --extract print only the first fenced code block of the answer');
    expect(text).toContain('--dry-run print the request that would be sent');
    expect(text).toContain('-s, --system <text> system prompt (default: none)');
  });

  it('chat takes -o but not -x or --dry-run (it has no one answer)', async () => {
    const text = await help(['chat']);
    expect(text).toContain('-o, --option <key=value>');
    expect(text).not.toContain('--extract');
    expect(text).not.toContain('--dry-run');
    const refused = await cli(['-x', 'chat']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('gatechat: -x, --extract does not apply to "gatechat chat" (see: gatechat chat --help)\n');
  });

  it('chat --help does not offer -m repeated (compare), which chat refuses; the one-shot help does', async () => {
    const chat = await help(['chat']);
    expect(chat).toMatch(/-m, --model <id> model id or alias \(config: model\); one model \(compare models one-shot: gatechat -m A -m B "prompt"\)/);
    expect(chat).not.toContain('repeat it to compare');
    expect(await help([])).toContain('repeat it to compare models');
    const refused = await cli(['chat', '-m', 'echo', '-m', 'lorem-3']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/chat talks to one model at a time/);
  });

  it('demo --help says it records nothing and offers none of -c, --cid, --no-save; they are refused there', async () => {
    const demo = await help(['demo']);
    expect(demo).toContain('nothing is recorded');
    for (const option of ['--continue', '--cid', '--no-save', '(default: recorded)']) expect(demo).not.toContain(option);
    const refused = await cli(['demo', '-c', 'hi']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/unknown option '-c'/);
  });

  it('serve --help gives each option its default', async () => {
    const text = await help(['serve']);
    expect(text).toContain('--port <n> port (0: any free port) (default: "8787")');
    expect(text).toContain('--host <host> address to listen on (default: "127.0.0.1")');
    expect(text).toContain('--api-key <key> require this key (Bearer or x-api-key) on every path, the request log included (default: GATECHAT_SERVE_API_KEY, else none)');
  });

  it('config list --help and history --help describe --profile and the id prefix', async () => {
    expect(await help(['config', 'list'])).toContain('-p, --profile <name> only this profile');
    expect(await help(['history'])).toContain('show, rm, fork: an id or its start (show with none: the latest)');
  });
});

describe('gatechat help [command]', () => {
  it.each([[[]], [['chat']], [['config', 'set']], [['batch']]])('help %j prints what --help prints, and sends nothing', async (command) => {
    const viaHelp = await cli(['help', ...command], '');
    expect(viaHelp.code, viaHelp.stderr).toBe(0);
    const viaFlag = await cli([...command, '--help'], '');
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toMatch(/^Usage: gatechat/);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('help with a word that names no command is one line saying how to send it as a prompt (exit 2)', async () => {
    const result = await cli(['--base-url', ctx.base, '-m', 'echo', 'help', 'me', 'write'], '');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('gatechat: help: no command "me" (commands: batch, chat, completion, config, demo, history, models, serve, template, tools, usage; to send a prompt starting with "help": gatechat -- help me write)\n');
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('gatechat -- help sends the word as a prompt', async () => {
    const result = await cli(['--base-url', ctx.base, '-m', 'echo', '--no-save', '--', 'help', 'chat'], '');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('help chat\n');
    expect(ctx.gateway.requests).toHaveLength(1);
  });
});

describe('the subcommand list the one-shot path relies on', () => {
  // A line naming no subcommand builds the root command alone (main.ts); a subcommand missing from
  // SUBCOMMAND_NAMES would then be sent to the model as a prompt word.
  it('SUBCOMMAND_NAMES is every command gatechat --help lists, in order', async () => {
    const { SUBCOMMAND_NAMES } = await import('../../src/cli/command-line.js');
    const result = await cli(['--help']);
    expect(result.code, result.stderr).toBe(0);
    const listed = result.stdout
      .split('\nCommands:\n')[1]!
      .split('\n\n')[0]!
      .split('\n')
      .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);
    expect(listed).toEqual(SUBCOMMAND_NAMES);
  });
});
