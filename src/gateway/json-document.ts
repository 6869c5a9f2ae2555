/**
 * Models `json` and `json-bad` (SPEC §9): a deterministic JSON document built from the request's
 * schema — Chat Completions `response_format.json_schema.schema`, Messages the input_schema of the
 * tool `tool_choice` forces — so `--schema` can be tried offline. `json-bad` breaks the first
 * property's type, so a client's validation has something to catch.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema the request asks the answer to match, with the tool name on Messages. */
export function requestedSchema(api: 'chat' | 'messages', body: Record<string, unknown>): { schema: Schema; tool: string | null } | null {
  if (api === 'chat') {
    const format = body.response_format;
    if (!isObject(format) || format.type !== 'json_schema' || !isObject(format.json_schema)) return null;
    const schema = format.json_schema.schema;
    return isObject(schema) ? { schema, tool: null } : null;
  }
  const choice = body.tool_choice;
  if (!isObject(choice) || choice.type !== 'tool' || typeof choice.name !== 'string' || !Array.isArray(body.tools)) return null;
  const tool = body.tools.find((t): t is Schema => isObject(t) && t.name === choice.name);
  return tool && isObject(tool.input_schema) ? { schema: tool.input_schema, tool: choice.name } : null;
}

const MAX_DEPTH = 8;

/** A value that matches `schema` (the common keywords: type, enum, const, properties, items, anyOf). */
export function sampleFor(schema: unknown, name = 'value', depth = 0): Json {
  if (!isObject(schema) || depth > MAX_DEPTH) return null;
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] as Json;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return sampleFor(options[0], name, depth + 1);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== 'null') ?? types[0];
  switch (type) {
    case 'object': {
      const out: { [key: string]: Json } = {};
      const properties = isObject(schema.properties) ? schema.properties : {};
      for (const [key, sub] of Object.entries(properties)) out[key] = sampleFor(sub, key, depth + 1);
      return out;
    }
    case 'array': {
      const count = typeof schema.minItems === 'number' ? Math.max(1, schema.minItems) : 1;
      return Array.from({ length: Math.min(count, 16) }, () => sampleFor(schema.items, name, depth + 1));
    }
    case 'string': {
      const text = `sample ${name}`;
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      return text.padEnd(min, '.');
    }
    case 'integer':
      return typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : 1;
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1.5;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return properties(schema) ? sampleFor({ ...schema, type: 'object' }, name, depth) : null;
  }
}

function properties(schema: Schema): boolean {
  return isObject(schema.properties);
}

/** The sample with its first property given a value of the wrong type (json-bad). */
export function brokenSample(schema: Schema): Json {
  const good = sampleFor(schema, 'answer');
  if (!isObject(good)) return [good];
  const [first] = Object.keys(good);
  if (first === undefined) return ['not an object'];
  const value = good[first];
  return { ...good, [first]: typeof value === 'string' ? 12345 : 'not the right type' };
}
