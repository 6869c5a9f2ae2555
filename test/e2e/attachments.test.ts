// -a / --attach as a user meets it (SPEC §12): the built binary against the dev gateway over real
// loopback HTTP, checking the exact request bodies, the limits (nothing sent) and saved conversations.
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** A PNG as far as sniffing goes: the signature, then `size` bytes in all. */
function png(size: number): Buffer {
  const bytes = Buffer.alloc(size, 7);
  Buffer.from(PNG_SIGNATURE).copy(bytes);
  return bytes;
}
const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

function file(name: string, content: string | Buffer): string {
  const path = join(ctx.user.home, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

function gatechat(args: string[], stdin?: string | Buffer) {
  return runCli(['--base-url', ctx.base, '-m', 'echo', ...args], { env: ctx.user.env(), stdin });
}

const body = (i = -1) => ctx.gateway.requests.at(i)!.body as Record<string, any>;

describe('text attachments', () => {
  it('go first as fenced blocks headed by the path, then stdin, then the prompt (both interfaces)', async () => {
    const notes = file('notes.md', '# Notes\nship it\n');
    for (const api of ['chat', 'messages']) {
      const result = await gatechat(['--api', api, '-a', notes, 'summarize'], 'from stdin\n');
      expect(result.code, result.stderr).toBe(0);
      const text = `${notes}\n\`\`\`\n# Notes\nship it\n\`\`\`\n\nfrom stdin\n\nsummarize`;
      expect(body().messages).toEqual([{ role: 'user', content: text }]);
      expect(result.stdout).toBe(`${text}\n`);
    }
  });

  it('a directory attaches its text files recursively, honouring .gitignore and skipping dot entries and binaries', async () => {
    const dir = join(ctx.user.home, 'proj');
    file('proj/.gitignore', 'build/\n*.log\n');
    file('proj/a.ts', 'export const a = 1;\n');
    file('proj/src/b.ts', 'export const b = 2;\n');
    file('proj/debug.log', 'noise\n');
    file('proj/build/out.js', 'generated\n');
    file('proj/.git/config', '[core]\n');
    file('proj/.env', 'SECRET=1\n');
    file('proj/logo.png', png(64));
    const result = await gatechat(['-a', dir, 'review'], undefined);
    expect(result.code, result.stderr).toBe(0);
    expect(body().messages[0].content).toBe(
      `${join(dir, 'a.ts')}\n\`\`\`\nexport const a = 1;\n\`\`\`\n\n${join(dir, 'src', 'b.ts')}\n\`\`\`\nexport const b = 2;\n\`\`\`\n\nreview`,
    );
  });

  it('- attaches stdin (its type sniffed too), and stdin is then not the prompt', async () => {
    const result = await gatechat(['-a', '-', 'what is this'], png(100));
    expect(result.code, result.stderr).toBe(0);
    expect(body().messages[0].content[0].type).toBe('image_url');
    expect(result.stdout).toBe('[image image/png 100 bytes]\nwhat is this\n');
  });
});

describe('symbolic links in an attached directory (SPEC §20)', () => {
  it('follows a link only to a file inside the directory that would be attached itself; names the others in one line', async () => {
    const secret = file('config/gatechat/config.json', '{"api-key":"sk-LEAKED-0001"}\n');
    file('repo/.env', 'SECRET=LEAKED-0002\n');
    file('repo/.gitignore', 'build/\n');
    file('repo/build/out.md', 'LEAKED-0003 generated\n');
    file('repo/docs/guide.md', 'the guide\n');
    file('repo/readme.md', 'read me\n');
    const repo = join(ctx.user.home, 'repo');
    symlinkSync('.env', join(repo, 'config.txt'));
    symlinkSync(secret, join(repo, 'notes.md'));
    symlinkSync('../build/out.md', join(repo, 'docs', 'generated.md'));
    symlinkSync('docs/guide.md', join(repo, 'guide-link.md'));
    symlinkSync(join(ctx.user.home, 'config'), join(repo, 'settings'));
    symlinkSync('missing.md', join(repo, 'dangling.md'));
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '-a', 'repo', 'review'], { env: ctx.user.env(), cwd: ctx.user.home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('gatechat: skipped 4 links that leave repo/: config.txt, docs/generated.md, notes.md, settings\n');
    const sent = JSON.stringify(body());
    expect(sent).not.toContain('LEAKED');
    // The link inside goes under its own name, beside its target.
    expect(body().messages[0].content).toBe(
      'repo/docs/guide.md\n```\nthe guide\n```\n\nrepo/guide-link.md\n```\nthe guide\n```\n\nrepo/readme.md\n```\nread me\n```\n\nreview',
    );
  });

  it('one link is "1 link that leaves"', async () => {
    file('one/a.md', 'a\n');
    symlinkSync(join(ctx.user.home, 'one', '..'), join(ctx.user.home, 'one', 'up'));
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '-a', 'one/', 'x'], { env: ctx.user.env(), cwd: ctx.user.home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('gatechat: skipped 1 link that leaves one/: up\n');
  });
});

describe('images and PDFs', () => {
  it('Chat Completions: image_url data URL and file parts before the text, streaming and not; echo names them', async () => {
    const shot = file('shot.png', png(2048));
    const report = file('docs/report.pdf', pdf);
    for (const stream of ['--stream', '--no-stream']) {
      const result = await gatechat([stream, '-a', shot, '-a', report, 'compare']);
      expect(result.code, result.stderr).toBe(0);
      expect(body().messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png(2048).toString('base64')}` } },
            { type: 'file', file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${pdf.toString('base64')}` } },
            { type: 'text', text: 'compare' },
          ],
        },
      ]);
      expect(result.stdout).toBe(`[image image/png 2048 bytes]\n[pdf report.pdf ${pdf.length} bytes]\ncompare\n`);
    }
  });

  it('Messages: image and document blocks with base64 sources, streaming and not', async () => {
    const shot = file('shot.png', png(2048));
    const report = file('report.pdf', pdf);
    for (const stream of ['--stream', '--no-stream']) {
      const result = await gatechat(['--api', 'messages', stream, '-a', shot, '-a', report, 'compare']);
      expect(result.code, result.stderr).toBe(0);
      expect(body().messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(2048).toString('base64') } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') }, title: 'report.pdf' },
            { type: 'text', text: 'compare' },
          ],
        },
      ]);
      expect(result.stdout).toBe(`[image image/png 2048 bytes]\n[pdf report.pdf ${pdf.length} bytes]\ncompare\n`);
    }
  });

  it('the type comes from the bytes: a PNG named .jpg goes as image/png', async () => {
    const lying = file('photo.jpg', png(300));
    const result = await gatechat(['-a', lying, 'what is it']);
    expect(result.code, result.stderr).toBe(0);
    expect(body().messages[0].content[0]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${png(300).toString('base64')}` } });
  });

  it('an image alone is a message (no empty text part)', async () => {
    const shot = file('shot.png', png(50));
    const result = await gatechat(['--api', 'messages', '-a', shot]);
    expect(result.code, result.stderr).toBe(0);
    expect(body().messages[0].content).toEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(50).toString('base64') } }]);
  });
});

describe('compare mode', () => {
  it('sends the same attachments to every model', async () => {
    const shot = file('shot.png', png(99));
    const result = await gatechat(['-m', 'echo+gzip', '-a', shot, 'what']); // with the helper's -m echo: two models
    expect(result.code, result.stderr).toBe(0);
    expect(ctx.gateway.requests).toHaveLength(2);
    for (const request of ctx.gateway.requests) {
      expect((request.body as any).messages[0].content[0]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${png(99).toString('base64')}` } });
    }
    expect(result.stdout).toContain('[image image/png 99 bytes]\nwhat');
  });
});

describe('refused before anything is sent (exit 2, one line naming the file)', () => {
  it('an image over 3.75 MiB', async () => {
    const big = file('huge.png', png(3.75 * 1024 * 1024 + 1));
    const result = await gatechat(['-a', big, 'look']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')[0]).toMatch(/huge\.png.*3\.75 MiB limit for images/);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('text attachments and stdin together over 8 MiB', async () => {
    const text = file('big.txt', 'a'.repeat(5 * 1024 * 1024));
    const result = await gatechat(['-a', text, 'summarize'], 'b'.repeat(4 * 1024 * 1024));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/big\.txt.*8 MiB limit/);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('all attachments over 32 MiB', async () => {
    const paths = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => file(`p${i}.png`, png(3.7 * 1024 * 1024)));
    const result = await gatechat([...paths.flatMap((p) => ['-a', p]), 'all of them']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/p8\.png.*32 MiB limit/);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('a file of another type, and a missing one', async () => {
    const exe = file('tool.bin', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
    const bad = await gatechat(['-a', exe, 'run it']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`cannot attach ${exe}: it is not UTF-8 text, a PNG, JPEG, GIF or WebP image, or a PDF`);
    const missing = await gatechat(['-a', join(ctx.user.home, 'nope.txt'), 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.txt: no such file/);
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});

describe('saved conversations keep attachments', () => {
  it('-c sends the image again; history show names it; history rm removes the blob nothing else uses', async () => {
    const shot = file('cat.png', png(1500));
    const first = await gatechat(['-a', shot, 'what animal']);
    expect(first.code, first.stderr).toBe(0);
    const blobs = join(ctx.user.dataDir, 'blobs');
    expect(readdirSync(blobs)).toHaveLength(1);

    const again = await gatechat(['-c', 'and its colour?']);
    expect(again.code, again.stderr).toBe(0);
    const imagePart = { type: 'image_url', image_url: { url: `data:image/png;base64,${png(1500).toString('base64')}` } };
    expect(body().messages).toEqual([
      { role: 'user', content: [imagePart, { type: 'text', text: 'what animal' }] },
      { role: 'assistant', content: '[image image/png 1500 bytes]\nwhat animal' },
      { role: 'user', content: 'and its colour?' },
    ]);

    // The same image in a second conversation is stored once.
    const other = await gatechat(['-a', shot, 'again']);
    expect(other.code, other.stderr).toBe(0);
    expect(readdirSync(blobs)).toHaveLength(1);

    const list = await runCli(['history', 'list', '--json'], { env: ctx.user.env() });
    const [newest, oldest] = (JSON.parse(list.stdout) as Array<{ cid: string }>).map((c) => c.cid);
    const shown = await runCli(['history', 'show', oldest], { env: ctx.user.env() });
    expect(shown.stdout).toContain(`> what animal\n> [attached ${shot} · image/png · 1500 bytes]`);

    const rmFirst = await runCli(['history', 'rm', oldest], { env: ctx.user.env() });
    expect(rmFirst.code).toBe(0);
    expect(readdirSync(blobs)).toHaveLength(1); // still used by the newer conversation
    const rmLast = await runCli(['history', 'rm', newest], { env: ctx.user.env() });
    expect(rmLast.stderr).toMatch(/and 1 attachment nothing else uses/);
    expect(readdirSync(blobs)).toHaveLength(0);
    expect(existsSync(blobs)).toBe(true);
  });

  it('Messages: -c sends the image block again; a lost blob is refused with the file named and nothing sent', async () => {
    const shot = file('dog.png', png(700));
    const first = await gatechat(['--api', 'messages', '-a', shot, 'what animal']);
    expect(first.code, first.stderr).toBe(0);
    const again = await gatechat(['-c', 'sure?']);
    expect(again.code, again.stderr).toBe(0);
    expect(body().messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(700).toString('base64') } }, { type: 'text', text: 'what animal' }],
    });

    rmSync(join(ctx.user.dataDir, 'blobs'), { recursive: true });
    const sent = ctx.gateway.requests.length;
    const lost = await gatechat(['-c', 'still there?']);
    expect(lost.code).toBe(2);
    expect(lost.stderr).toMatch(/the attached .*dog\.png is missing/);
    expect(ctx.gateway.requests).toHaveLength(sent);
  });
});
