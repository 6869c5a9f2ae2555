import { isRecord, tryParseJson, type JsonObject } from './json.js';

// `--schema` (SPEC §12): the option's three forms, and the request fields each interface needs to
// ask for a JSON answer. Pure: reading a schema file is the caller's, through `readFile`.

/** The name of the schema on Chat Completions and of the forced tool on Messages. */
export const ANSWER_NAME = 'answer';

export type SchemaParse = { ok: true; schema: JsonObject } | { ok: false; message: string };

const FIELD_TYPES: Record<string, string> = { str: 'string', int: 'integer', float: 'number', bool: 'boolean' };
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * The field-list form, as llm's schema DSL: `name, age int, tags: short labels` — comma separated
 * (newline separated when the text has newlines, so descriptions may hold commas), the type after
 * the name (`str` default, `int`, `float`, `bool`), a description after `:`. Every field required
 * and nothing else allowed, which Chat Completions' strict mode demands.
 */
export function parseFieldList(text: string): SchemaParse {
  const items = (text.includes('\n') ? text.split('\n') : text.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) return { ok: false, message: 'no fields given' };
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const item of items) {
    const colon = item.indexOf(':');
    const head = (colon < 0 ? item : item.slice(0, colon)).trim();
    const description = colon < 0 ? '' : item.slice(colon + 1).trim();
    const words = head.split(/\s+/).filter((w) => w !== '');
    if (words.length === 0 || words.length > 2) return { ok: false, message: `cannot read the field ${JSON.stringify(item)} (expected: name [type][: description])` };
    const [name, typeName = 'str'] = words;
    if (!FIELD_NAME.test(name)) return { ok: false, message: `${JSON.stringify(name)} is not a field name (letters, digits, _ and -)` };
    const type = FIELD_TYPES[typeName];
    if (type === undefined) return { ok: false, message: `unknown type ${JSON.stringify(typeName)} for field ${name} (str, int, float or bool)` };
    if (name in properties) return { ok: false, message: `field ${name} is given twice` };
    properties[name] = description === '' ? { type } : { type, description };
    required.push(name);
  }
  return { ok: true, schema: { type: 'object', properties, required, additionalProperties: false } };
}

/** Both interfaces want an object at the root (a tool's input is one; strict json_schema too). */
function checkRoot(value: unknown, where: string): SchemaParse {
  if (!isRecord(value)) return { ok: false, message: `${where} is not a JSON object` };
  if (value.type !== 'object') return { ok: false, message: `${where} must describe an object ("type": "object"): both interfaces require it` };
  return { ok: true, schema: value };
}

/**
 * `--schema <value>`: inline JSON (it starts with `{`), else a file that exists (`readFile`
 * returns its text, or undefined when there is none), else the field-list form.
 */
export function parseSchemaOption(value: string, readFile: (path: string) => string | undefined = () => undefined): SchemaParse {
  const trimmed = value.trim();
  if (trimmed === '') return { ok: false, message: 'expected a JSON Schema, a file or a field list' };
  if (trimmed.startsWith('{')) {
    const parsed = tryParseJson(trimmed);
    if (!parsed.ok) return { ok: false, message: 'the inline schema is not valid JSON' };
    return checkRoot(parsed.value, 'the inline schema');
  }
  const fileText = readFile(value);
  if (fileText !== undefined) {
    const parsed = tryParseJson(fileText);
    if (!parsed.ok) return { ok: false, message: `${value} is not valid JSON` };
    return checkRoot(parsed.value, value);
  }
  return parseFieldList(trimmed);
}

/** Chat Completions: structured output through `response_format`. */
export function chatSchemaFields(schema: JsonObject): JsonObject {
  return { response_format: { type: 'json_schema', json_schema: { name: ANSWER_NAME, schema, strict: true } } };
}

/** Messages: one tool whose input is the answer, and the model made to call it. */
export function messagesSchemaFields(schema: JsonObject): JsonObject {
  return {
    tools: [{ name: ANSWER_NAME, input_schema: schema }],
    tool_choice: { type: 'tool', name: ANSWER_NAME },
  };
}
