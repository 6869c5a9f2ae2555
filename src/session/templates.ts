import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../exit-codes.js';
import { TEMPLATE_EXTENSION, templatesDir } from './template-names.js';

// SPEC §18 templates: a Markdown file, an optional YAML front matter between `---` lines, and a body
// with `{{name}}` placeholders. This module (and the YAML parser with it) is loaded only when a
// template is used: `-T`, `gatechat template`, `/template`.

/** What the front matter may set; the command line's flags still win (cli/template-options.ts). */
export interface TemplateFront {
  model?: string;
  system?: string;
  temperature?: number;
  'max-tokens'?: number;
  api?: string;
  /** Inline JSON Schema (a mapping), or what `--schema` takes (a field list or a file). */
  schema?: string | Record<string, unknown>;
  /** Request body fields, like `-o`. */
  options?: Record<string, unknown>;
  /** One line for `gatechat template list`. */
  description?: string;
  /** MCP servers for runs of this template, in the `mcpServers` object form (SPEC §15, §18). */
  mcp?: Record<string, unknown>;
  /** Tools that run without asking: one glob or a list, added to --allow. */
  allow?: string | string[];
}

export interface Template {
  name: string;
  front: TemplateFront;
  /** The text after the front matter, trailing blank lines dropped. */
  body: string;
}

type Check = 'string' | 'number' | 'mapping' | 'string-or-mapping' | 'string-or-list';
const FRONT_KEYS: Record<keyof TemplateFront, Check> = {
  model: 'string',
  system: 'string',
  temperature: 'number',
  'max-tokens': 'number',
  api: 'string',
  schema: 'string-or-mapping',
  options: 'mapping',
  description: 'string',
  mcp: 'mapping',
  allow: 'string-or-list',
};

const isMapping = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function checkValue(name: string, key: string, value: unknown, check: Check): void {
  const ok =
    check === 'string' ? typeof value === 'string'
    : check === 'number' ? typeof value === 'number'
    : check === 'mapping' ? isMapping(value)
    : check === 'string-or-list' ? typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'))
    : typeof value === 'string' || isMapping(value);
  if (!ok) {
    const expected =
      check === 'string-or-mapping' ? 'a string or a mapping'
      : check === 'string-or-list' ? 'a string or a list of strings'
      : `a ${check}`;
    throw new UsageError(`template ${name}: ${key} must be ${expected}`);
  }
}

/** The file's text → front matter and body; every problem is one line naming the template. */
export function parseTemplate(name: string, source: string): Template {
  const text = source.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  let front: TemplateFront = {};
  let body = text;
  if (text.startsWith('---\n')) {
    const close = /^(?:---|\.\.\.)[ \t]*$/m;
    const rest = text.slice(4);
    const end = close.exec(rest);
    if (!end) throw new UsageError(`template ${name}: the front matter has no closing --- line`);
    const yaml = rest.slice(0, end.index);
    // The closing line's match stops before its newline (or at the end of the text): the body starts after it.
    body = rest.slice(end.index + end[0].length + 1);
    let value: unknown;
    try {
      value = parseYaml(yaml);
    } catch (error) {
      throw new UsageError(`template ${name}: the front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    }
    if (value === null) value = {}; // an empty front matter, or only comments
    if (!isMapping(value)) throw new UsageError(`template ${name}: the front matter must be a mapping (key: value lines)`);
    for (const [key, item] of Object.entries(value)) {
      const check = (FRONT_KEYS as Record<string, Check | undefined>)[key];
      if (!check) throw new UsageError(`template ${name}: unknown front matter key ${key} (known: ${Object.keys(FRONT_KEYS).join(', ')})`);
      checkValue(name, key, item, check);
    }
    front = value as TemplateFront;
  }
  return { name, front, body: body.replace(/\s+$/, '') };
}

/** `{{ name }}`: a letter or underscore, then letters, digits, `_`, `-`. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g;

/** The placeholders' names, once each, in the order they first appear. */
export function templateParameters(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/**
 * Every placeholder replaced by its value in one pass (a value that itself holds `{{x}}` is inserted
 * as it is). A placeholder without a value is a usage error naming it: nothing is sent.
 */
export function renderTemplate(name: string, text: string, values: Record<string, string>): string {
  for (const parameter of templateParameters(text)) {
    if (!Object.prototype.hasOwnProperty.call(values, parameter)) {
      throw new UsageError(`template ${name}: missing parameter ${parameter} (pass -P ${parameter}=…)`);
    }
  }
  return text.replace(PLACEHOLDER, (_, parameter: string) => values[parameter]!);
}

export function templatePath(name: string, dir: string = templatesDir()): string {
  return join(dir, `${name}${TEMPLATE_EXTENSION}`);
}

/** Reads and parses `<dir>/<name>.md`. A link is followed: templates are the user's, often kept in a dotfiles repository. */
export function readTemplate(name: string, dir: string = templatesDir()): Template {
  let source: string;
  try {
    source = readFileSync(templatePath(name, dir), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`no template named ${name} in ${dir} (see: gatechat template list)`);
    throw new UsageError(`template ${name}: cannot read ${templatePath(name, dir)}: ${code ?? (error as Error).message}`);
  }
  return parseTemplate(name, source);
}
