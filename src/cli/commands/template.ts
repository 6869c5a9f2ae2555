import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { ExitCode, UsageError } from '../../exit-codes.js';
import { ensurePrivateDir, writeFileAtomic } from '../../storage/own-files.js';
import { listTemplateNames, parseTemplateName, templatesDir } from '../../session/template-names.js';
import { parseTemplate, readTemplate, templateParameters, templatePath } from '../../session/templates.js';
import { sanitizeForTerminal } from '../../render/terminal-text.js';
import { jsonText } from '../../render/json-text.js';
import { runEditor } from '../../render/ink/editor.js';

// `gatechat template list|show|edit|rm` (SPEC §18). Problems are UsageError (exit 2), printed by main.

export const TEMPLATE_ACTIONS = ['list', 'show', 'edit', 'rm'] as const;
export type TemplateAction = (typeof TEMPLATE_ACTIONS)[number];

interface TemplateIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** What `edit` starts a new template with: comments only, so an untouched one is an empty prompt. */
const STARTER = [
  '---',
  '# Front matter (optional; flags given on the command line win):',
  '# description: one line for gatechat template list',
  '# model: an id or alias        system: You review {{lang}} code.',
  '# temperature: 0.2             max-tokens: 1000        api: chat',
  '# options: {top_p: 0.9}        schema: "title, year int"',
  '# Below the closing line, the prompt: {{name}} is filled by -P name=…, {{input}} by stdin.',
  '---',
  '',
].join('\n');

function missing(name: string): UsageError {
  return new UsageError(`no template named ${name} in ${templatesDir()} (see: gatechat template list)`);
}

export function runTemplateCommand(action: TemplateAction, rawName: string | undefined, opts: { json?: boolean }, io: TemplateIo): number {
  if (action === 'list') return list(Boolean(opts.json), io);
  if (!rawName) throw new UsageError(`template ${action}: expected a template name (see: gatechat template list)`);
  const name = parseTemplateName(rawName, `template ${action}`);
  const path = templatePath(name);
  switch (action) {
    case 'show': {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        throw missing(name);
      }
      io.stdout.write(io.stdout.isTTY ? sanitizeForTerminal(text) : text);
      return ExitCode.ok;
    }
    case 'rm':
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw missing(name);
        throw new UsageError(`template rm: cannot remove ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      io.stderr.write(`gatechat: removed template ${name} (${path})\n`);
      return ExitCode.ok;
    case 'edit': {
      if (!existsSync(path)) {
        ensurePrivateDir(templatesDir());
        writeFileAtomic(path, STARTER);
      }
      const failed = runEditor(path);
      if (failed) throw new UsageError(`template edit: ${failed}; ${path} is as the editor left it`);
      // Said now rather than at the next -T: the file is kept either way.
      try {
        parseTemplate(name, readFileSync(path, 'utf8'));
      } catch (error) {
        if (error instanceof UsageError) throw new UsageError(`${error.message} (saved; run gatechat template edit ${name} to fix it)`);
        throw error;
      }
      return ExitCode.ok;
    }
    default: {
      const never: never = action;
      throw new Error(`unknown action ${String(never)}`);
    }
  }
}

function list(json: boolean, io: TemplateIo): number {
  const names = listTemplateNames();
  if (!json && !io.stdout.isTTY) {
    // Scripts and shell loops: one name a line.
    io.stdout.write(names.map((name) => `${name}\n`).join(''));
    return ExitCode.ok;
  }
  const rows = names.map((name) => {
    try {
      const template = readTemplate(name);
      return { name, description: template.front.description ?? null, parameters: templateParameters(`${template.body}\n${template.front.system ?? ''}`), front: template.front };
    } catch (error) {
      return { name, error: (error as Error).message };
    }
  });
  if (json) {
    io.stdout.write(`${jsonText(rows)}\n`);
    return ExitCode.ok;
  }
  if (rows.length === 0) {
    io.stdout.write(`no templates yet in ${templatesDir()} (gatechat template edit NAME makes one)\n`);
    return ExitCode.ok;
  }
  const width = Math.max(...rows.map((row) => row.name.length));
  for (const row of rows) {
    const detail =
      'error' in row
        ? `(does not parse: ${row.error})`
        : [
            row.description ?? '',
            ...row.parameters.filter((p) => p !== 'input').map((p) => `-P ${p}`),
            row.parameters.includes('input') ? 'stdin → {{input}}' : '',
          ]
            .filter(Boolean)
            .join('  ');
    io.stdout.write(`${sanitizeForTerminal(`${row.name.padEnd(width)}  ${detail}`)}\n`);
  }
  return ExitCode.ok;
}
