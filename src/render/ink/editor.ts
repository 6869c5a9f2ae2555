import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * /edit: runs $VISUAL / $EDITOR (through the shell, so "code --wait" works) on a temp file and returns
 * its text, or null when the editor failed. Blocking is intended: the terminal belongs to the editor.
 */
export function editInEditor(initial: string, env: NodeJS.ProcessEnv = process.env): { text: string | null; error?: string } {
  const editor = env.VISUAL || env.EDITOR || 'vi';
  const dir = mkdtempSync(join(tmpdir(), 'gatechat-edit-'));
  const file = join(dir, 'prompt.md');
  try {
    writeFileSync(file, initial, { mode: 0o600 });
    const quoted = `'${file.replace(/'/g, `'\\''`)}'`;
    const result = spawnSync(`${editor} ${quoted}`, { shell: true, stdio: 'inherit', env });
    if (result.error) return { text: null, error: `could not run ${editor}: ${result.error.message}` };
    if (result.status !== 0) return { text: null, error: `${editor} exited with status ${result.status ?? result.signal}` };
    return { text: readFileSync(file, 'utf8').replace(/\s+$/, '') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
