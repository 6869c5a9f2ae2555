import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * $VISUAL / $EDITOR (through the shell, so "code --wait" works) on `file`, waiting for it; the error
 * line when it could not run or failed, else null. `gatechat template edit` uses it on the template.
 */
export function runEditor(file: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const editor = env.VISUAL || env.EDITOR || 'vi';
  const quoted = `'${file.replace(/'/g, `'\\''`)}'`;
  const result = spawnSync(`${editor} ${quoted}`, { shell: true, stdio: 'inherit', env });
  if (result.error) return `could not run ${editor}: ${result.error.message}`;
  if (result.status !== 0) return `${editor} exited with status ${result.status ?? result.signal}`;
  return null;
}

/**
 * /edit: runs $VISUAL / $EDITOR (through the shell, so "code --wait" works) on a temp file and returns
 * its text, or null when the editor failed. Blocking is intended: the terminal belongs to the editor.
 */
export function editInEditor(initial: string, env: NodeJS.ProcessEnv = process.env): { text: string | null; error?: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gatechat-edit-'));
  const file = join(dir, 'prompt.md');
  try {
    writeFileSync(file, initial, { mode: 0o600 });
    const error = runEditor(file, env);
    if (error) return { text: null, error };
    return { text: readFileSync(file, 'utf8').replace(/\s+$/, '') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
