import { UsageError } from '../exit-codes.js';
import { parseApi, parseBodyOption, parseModel, parsePositiveInt, parseTemperature } from '../config/keys.js';
import { readSchemaOption } from '../session/schema-file.js';
import { readTemplate, renderTemplate, templateParameters, type Template } from '../session/templates.js';
import { parseTemplateName } from '../session/template-names.js';
import type { ChatModeOptions } from './flags.js';
import type { SessionSettings } from '../session/types.js';

// SPEC §18 `-T <name> -P key=value`: the template read, its parameters checked and its front matter
// applied under the flags (flags win) — all before any setting is resolved or anything is sent.

/** The placeholder stdin fills (SPEC §18); `-P input=…` fills it instead. */
export const INPUT_PARAMETER = 'input';

/**
 * Every `{{name}}` of the body and the system prompt but `{{input}}` (stdin may still fill it) must be
 * given, and nothing else may be: a parameter the template does not use is a typo. `pass` and `given`
 * say it the command line's way or the chat's.
 */
export function checkParameters(template: Template, params: Record<string, string>, pass: (parameter: string) => string, given: (parameter: string) => string): void {
  const label = `template ${template.name}`;
  const wanted = templateParameters(`${template.body}\n${template.front.system ?? ''}`);
  for (const name of Object.keys(params)) {
    if (!wanted.includes(name)) {
      const known = wanted.length ? `its parameters: ${wanted.join(', ')}` : 'it has no parameters';
      throw new UsageError(`${given(name)}: ${label} has no {{${name}}} (${known})`);
    }
  }
  for (const parameter of wanted) {
    if (parameter !== INPUT_PARAMETER && !(parameter in params)) throw new UsageError(`${label}: missing parameter ${parameter} (${pass(parameter)})`);
  }
}

/** What the front matter sets, each value checked by its flag's parser (the template and key named). */
export function templateSettings(template: Template, values: Record<string, string>): Partial<Omit<SessionSettings, 'stream'>> {
  const { front, name } = template;
  const label = `template ${name}`;
  const settings: Partial<Omit<SessionSettings, 'stream'>> = {};
  if (front.model !== undefined) settings.model = parseModel(front.model, `${label}: model`);
  if (front.system !== undefined) settings.system = renderTemplate(name, front.system, values);
  if (front.temperature !== undefined) settings.temperature = parseTemperature(String(front.temperature), `${label}: temperature`);
  if (front['max-tokens'] !== undefined) settings.maxTokens = parsePositiveInt(String(front['max-tokens']), `${label}: max-tokens`);
  if (front.api !== undefined) settings.api = parseApi(front.api, `${label}: api`);
  if (front.options !== undefined) {
    // Checked like -o: the fields gatechat builds itself are refused.
    settings.extraBody = Object.fromEntries(Object.entries(front.options).map(([key, value]) => parseBodyOption(`${key}=${JSON.stringify(value)}`, `${label}: options`)));
  }
  return settings;
}

export function applyTemplate(options: ChatModeOptions): ChatModeOptions {
  const choice = options.template!;
  const name = parseTemplateName(choice.name, '-T');
  const template = readTemplate(name);
  checkParameters(template, choice.params, (parameter) => `pass -P ${parameter}=…`, (given) => `-P ${given}`);

  const fromTemplate = templateSettings(template, choice.params);
  const flags = { ...options.flags };
  flags.model ??= fromTemplate.model;
  flags.system ??= fromTemplate.system;
  flags.temperature ??= fromTemplate.temperature;
  flags.maxTokens ??= fromTemplate.maxTokens;
  flags.api ??= fromTemplate.api;
  // -o's own keys win, key by key.
  if (fromTemplate.extraBody !== undefined) flags.extraBody = { ...fromTemplate.extraBody, ...flags.extraBody };
  let schema = options.schema;
  const fromFront = template.front.schema;
  if (fromFront !== undefined && schema === undefined && options.tools === undefined) {
    schema = readSchemaOption(typeof fromFront === 'string' ? fromFront : JSON.stringify(fromFront), `template ${name}: schema`);
  }
  // The template's tools (SPEC §18): its MCP servers join the run's, its allow adds to --allow.
  const front = template.front;
  const mcp = front.mcp === undefined ? options.mcp : { ...options.mcp, template: { name, servers: front.mcp } };
  const allow = front.allow === undefined ? [] : typeof front.allow === 'string' ? [front.allow] : front.allow;
  const toolLoop = { ...options.toolLoop, allow: [...options.toolLoop.allow, ...allow] };
  return { ...options, flags, schema, mcp, toolLoop, template: { ...choice, name, loaded: template } };
}

/**
 * The message of `-T` (cli/context.ts readMessage; `read` is its stdin + words reader): with `{{input}}`
 * and no `-P input`, stdin goes there and must not be empty; otherwise stdin goes first as for any
 * prompt. Prompt words follow the body after a blank line.
 */
export async function templatePrompt(
  template: Template,
  params: Record<string, string>,
  words: string[],
  read: (args: string[], allowEmpty: boolean) => Promise<string>,
  allowEmpty: boolean,
): Promise<string> {
  if (!takesStdinAsInput(template, params)) return read([templateText(template, params, words, null)], allowEmpty);
  const input = await read([], true);
  if (input.trim() === '') throw new UsageError(`template ${template.name}: missing parameter input (pipe it on stdin, or pass -P input=…)`);
  return templateText(template, params, words, input);
}

function templateText(template: Template, params: Record<string, string>, words: string[], stdin: string | null): string {
  const values = stdin === null ? params : { ...params, [INPUT_PARAMETER]: stdin };
  const body = renderTemplate(template.name, template.body, values);
  return words.length ? `${body}\n\n${words.join(' ')}` : body;
}

/** Whether stdin is this template's `{{input}}` (rather than text before it). */
function takesStdinAsInput(template: Template, params: Record<string, string>): boolean {
  return templateParameters(template.body).includes(INPUT_PARAMETER) && !(INPUT_PARAMETER in params);
}
