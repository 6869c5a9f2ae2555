import { UsageError } from '../exit-codes.js';
import { parseApi, parseBodyOption, parseModel, parsePositiveInt, parseTemperature } from '../config/keys.js';
import { readSchemaOption } from '../session/schema-file.js';
import { readTemplate, renderTemplate, templateParameters, type Template } from '../session/templates.js';
import { parseTemplateName } from '../session/template-names.js';
import type { ChatModeOptions } from './flags.js';

// SPEC §18 `-T <name> -P key=value`: the template read, its parameters checked and its front matter
// applied under the flags (flags win) — all before any setting is resolved or anything is sent.

/** The placeholder stdin fills (SPEC §18); `-P input=…` fills it instead. */
export const INPUT_PARAMETER = 'input';

export function applyTemplate(options: ChatModeOptions): ChatModeOptions {
  const choice = options.template!;
  const name = parseTemplateName(choice.name, '-T');
  const template = readTemplate(name);
  const { front } = template;
  const label = `template ${name}`;

  const wanted = templateParameters(`${template.body}\n${front.system ?? ''}`);
  for (const given of Object.keys(choice.params)) {
    if (!wanted.includes(given)) {
      const known = wanted.length ? `its parameters: ${wanted.join(', ')}` : 'it has no parameters';
      throw new UsageError(`-P ${given}: ${label} has no {{${given}}} (${known})`);
    }
  }
  // Every parameter but {{input}} must be given now; {{input}} may still come from stdin.
  for (const parameter of wanted) {
    if (parameter !== INPUT_PARAMETER && !(parameter in choice.params)) {
      throw new UsageError(`${label}: missing parameter ${parameter} (pass -P ${parameter}=…)`);
    }
  }

  const flags = { ...options.flags };
  if (front.model !== undefined && flags.model === undefined) flags.model = parseModel(front.model, `${label}: model`);
  if (front.system !== undefined && flags.system === undefined) flags.system = renderTemplate(name, front.system, choice.params);
  if (front.temperature !== undefined && flags.temperature === undefined) flags.temperature = parseTemperature(String(front.temperature), `${label}: temperature`);
  if (front['max-tokens'] !== undefined && flags.maxTokens === undefined) flags.maxTokens = parsePositiveInt(String(front['max-tokens']), `${label}: max-tokens`);
  if (front.api !== undefined && flags.api === undefined) flags.api = parseApi(front.api, `${label}: api`);
  if (front.options !== undefined) {
    // Checked like -o (the fields gatechat builds itself are refused); -o's own keys win.
    const fromTemplate = Object.fromEntries(Object.entries(front.options).map(([key, value]) => parseBodyOption(`${key}=${JSON.stringify(value)}`, `${label}: options`)));
    flags.extraBody = { ...fromTemplate, ...flags.extraBody };
  }
  let schema = options.schema;
  if (front.schema !== undefined && schema === undefined && options.tools === undefined) {
    schema = readSchemaOption(typeof front.schema === 'string' ? front.schema : JSON.stringify(front.schema), `${label}: schema`);
  }
  return { ...options, flags, schema, template: { ...choice, name, loaded: template } };
}

/**
 * The message text for a template (cli/context.ts readMessage): with `{{input}}` and no `-P input`,
 * `stdin` goes there; otherwise stdin goes first as usual (the caller prepends it). Prompt words
 * follow the body after a blank line.
 */
export function templateText(template: Template, params: Record<string, string>, words: string[], stdin: string | null): string {
  const values = stdin === null ? params : { ...params, [INPUT_PARAMETER]: stdin };
  const body = renderTemplate(template.name, template.body, values);
  return words.length ? `${body}\n\n${words.join(' ')}` : body;
}

/** Whether stdin is this template's `{{input}}` (rather than text before it). */
export function takesStdinAsInput(template: Template, params: Record<string, string>): boolean {
  return templateParameters(template.body).includes(INPUT_PARAMETER) && !(INPUT_PARAMETER in params);
}
