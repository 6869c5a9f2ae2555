// SPEC §18 templates as a user meets them: the built binary against the dev gateway over loopback,
// checking the exact request bodies, that bad input sends nothing, and `gatechat template …`.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();

function template(name: string, text: string): string {
  const dir = join(ctx.user.configDir, 'templates');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.md`);
  writeFileSync(path, text);
  return path;
}

function gatechat(args: string[], stdin?: string, env: Record<string, string> = {}) {
  return runCli(['--base-url', ctx.base, ...args], { env: { ...ctx.user.env(), ...env }, stdin });
}

/** `gatechat template …` takes no connection options. */
function templateCommand(args: string[], env: Record<string, string> = {}) {
  return runCli(['template', ...args], { env: { ...ctx.user.env(), ...env } });
}

const body = (i = -1) => ctx.gateway.requests.at(i)!.body as Record<string, any>;
const REVIEW = '---\nmodel: echo\nsystem: You review {{lang}} code.\ntemperature: 0.2\n---\nReview this {{lang}} diff for bugs:\n\n{{input}}\n\nAnswer in a list.\n';

describe('-T <name> -P key=value', () => {
  it('git diff | gatechat -T review -P lang=go: stdin goes where {{input}} is, the front matter sets model, system, temperature', async () => {
    template('review', REVIEW);
    const diff = 'diff --git a/x.go b/x.go\n+func f() {}\n';
    const result = await gatechat(['-T', 'review', '-P', 'lang=go'], diff);
    expect(result.code, result.stderr).toBe(0);
    const text = 'Review this go diff for bugs:\n\ndiff --git a/x.go b/x.go\n+func f() {}\n\nAnswer in a list.';
    expect(body()).toMatchObject({
      model: 'echo',
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'You review go code.' },
        { role: 'user', content: text },
      ],
    });
    expect(result.stdout).toBe(`${text}\n`);
  });

  it('flags override the template: -m, -s, -t, -o', async () => {
    template('review', REVIEW.replace('temperature: 0.2', 'temperature: 0.2\noptions:\n  top_p: 0.5\n  seed: 1'));
    const result = await gatechat(['-T', 'review', '-P', 'lang=go', '-m', 'echo', '-s', 'Be brief.', '-t', '0.7', '-o', 'top_p=0.9'], 'x');
    expect(result.code, result.stderr).toBe(0);
    expect(body()).toMatchObject({ model: 'echo', temperature: 0.7, top_p: 0.9, seed: 1, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user' }] });
  });

  it('without {{input}} stdin goes first, then the body, then the prompt words', async () => {
    template('explain', 'Explain this in {{words}} words.');
    const result = await gatechat(['-m', 'echo', '-T', 'explain', '-P', 'words=ten', 'for a child'], 'the text\n');
    expect(result.code, result.stderr).toBe(0);
    expect(body().messages).toEqual([{ role: 'user', content: 'the text\n\nExplain this in ten words.\n\nfor a child' }]);
  });

  it('-P input=… fills {{input}} without stdin; a value with = keeps it', async () => {
    template('say', '{{input}} / {{eq}}');
    const result = await gatechat(['-m', 'echo', '--no-stdin', '-T', 'say', '-P', 'input=hello', '-P', 'eq=a=b'], undefined);
    expect(result.code, result.stderr).toBe(0);
    expect(body().messages).toEqual([{ role: 'user', content: 'hello / a=b' }]);
  });

  it('bad input is one line and exit 2, nothing sent', async () => {
    template('review', REVIEW);
    template('broken', '---\nmodel: [\n---\nx');
    template('hot', '---\nmodel: echo\ntemperature: -1\n---\nx');
    const cases: Array<[string[], string | undefined, RegExp]> = [
      [['-T', 'review'], 'diff', /^gatechat: template review: missing parameter lang \(pass -P lang=…\)\n/],
      [['-T', 'review', '-P', 'lang=go', '--no-stdin'], undefined, /^gatechat: template review: missing parameter input \(pipe it on stdin, or pass -P input=…\)\n/],
      [['-T', 'review', '-P', 'lang=go', '-P', 'lnag=x'], 'd', /^gatechat: -P lnag: template review has no \{\{lnag\}\} \(its parameters: lang, input\)\n/],
      [['-T', 'nope'], 'd', /^gatechat: no template named nope in .*templates \(see: gatechat template list\)\n/],
      [['-T', '../etc/x'], 'd', /^gatechat: -T: "..\/etc\/x" is not a template name/],
      [['-T', 'review', '-P', 'novalue'], 'd', /^gatechat: -P: expected key=value, got "novalue"\n/],
      [['-P', 'lang=go', 'hi'], undefined, /^gatechat: -P: only with -T <template>\n/],
      [['-T', 'broken'], 'd', /^gatechat: template broken: the front matter is not valid YAML/],
      [['-T', 'hot'], 'd', /^gatechat: template hot: temperature: /],
    ];
    for (const [args, stdin, message] of cases) {
      const result = await gatechat(args, stdin);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('--dry-run shows the rendered request', async () => {
    template('review', REVIEW);
    const result = await gatechat(['--dry-run', '-T', 'review', '-P', 'lang=ts'], 'code');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).body.messages[1].content).toBe('Review this ts diff for bugs:\n\ncode\n\nAnswer in a list.');
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});

describe('gatechat template list|show|edit|rm', () => {
  it('list: names when piped; show: the file as it is; rm: gone', async () => {
    template('review', REVIEW);
    template('explain', '---\ndescription: explain simply\n---\nExplain {{x}}.');
    const list = await templateCommand(['list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe('explain\nreview\n');
    const bare = await templateCommand([]);
    expect(bare.stdout).toBe('explain\nreview\n');

    const show = await templateCommand(['show', 'review']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toBe(REVIEW);

    const rm = await templateCommand(['rm', 'review']);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stderr).toMatch(/removed template review/);
    expect(existsSync(join(ctx.user.configDir, 'templates', 'review.md'))).toBe(false);
    expect((await templateCommand(['list'])).stdout).toBe('explain\n');
  });

  it('--json lists names, parameters and the front matter', async () => {
    template('explain', '---\ndescription: explain simply\nmodel: echo\n---\nExplain {{x}} to {{who}}.');
    const list = await templateCommand(['list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([{ name: 'explain', description: 'explain simply', parameters: ['x', 'who'], front: { description: 'explain simply', model: 'echo' } }]);
  });

  it('edit runs $EDITOR on the file, creating it from a starter the first time', async () => {
    const editor = join(ctx.user.home, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf "seen: %s\\n" "$1" >&2\nprintf "Hello {{who}}.\\n" >> "$1"\n', { mode: 0o755 });
    const result = await templateCommand(['edit', 'greet'], { EDITOR: editor, VISUAL: '' });
    expect(result.code, result.stderr).toBe(0);
    const path = join(ctx.user.configDir, 'templates', 'greet.md');
    expect(result.stderr).toContain(`seen: ${path}`);
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('---\n')).toBe(true);
    expect(text.endsWith('Hello {{who}}.\n')).toBe(true);
    const run = await gatechat(['-m', 'echo', '-T', 'greet', '-P', 'who=you', '--no-stdin']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Hello you\.\n$/);
  });

  it('edit warns when the saved template does not parse; show, rm of a missing one are exit 2', async () => {
    const editor = join(ctx.user.home, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf -- "---\\nmodel: [\\n" > "$1"\n', { mode: 0o755 });
    const edited = await templateCommand(['edit', 'bad'], { EDITOR: editor, VISUAL: '' });
    expect(edited.code).toBe(2);
    expect(edited.stderr).toMatch(/^gatechat: template bad: the front matter has no closing --- line \(saved; run gatechat template edit bad to fix it\)\n$/);
    for (const action of ['show', 'rm']) {
      const result = await templateCommand([action, 'missing']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^gatechat: no template named missing in .* \(see: gatechat template list\)\n$/);
    }
    const noName = await templateCommand(['show']);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toMatch(/template show: expected a template name/);
  });
});

describe('shell completion knows template names', () => {
  it('after -T and after template show/edit/rm', async () => {
    template('review', REVIEW);
    template('explain', 'x');
    const afterT = await runCli(['__complete', '--', '-T', ''], { env: ctx.user.env() });
    expect(afterT.stdout).toBe(':words\nexplain\nreview\n');
    const show = await runCli(['__complete', '--', 'template', 'show', 'r'], { env: ctx.user.env() });
    expect(show.stdout).toBe(':words\nreview\n');
    const actions = await runCli(['__complete', '--', 'template', ''], { env: ctx.user.env() });
    expect(actions.stdout).toBe(':words\nedit\nlist\nrm\nshow\n');
  });
});
