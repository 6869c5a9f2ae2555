// The shape checks the MCP SDK's client makes with its zod schemas (types.js), written as plain functions
// for the stdio client (jsonrpc-client.ts): loading the SDK's schemas costs gatechat ~21 ms of CPU on an
// idle machine, spent while the servers boot on the same cores. They accept and refuse what the SDK's
// schemas do for every message and result gatechat reads (test/tools/mcp-shapes.test.ts runs both over
// the same cases); where a result is refused, the message names the field instead of zod's issue list.

/** A check: undefined when `value` fits, else what is wrong (`path` names where). */
type Check = (value: unknown, path: string) => string | undefined;

const where = (path: string) => (path === '' ? '' : `${path}: `);
const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const str: Check = (value, path) => (typeof value === 'string' ? undefined : `${where(path)}expected a string, got ${kind(value)}`);
const bool: Check = (value, path) => (typeof value === 'boolean' ? undefined : `${where(path)}expected a boolean, got ${kind(value)}`);
const num: Check = (value, path) => (typeof value === 'number' && Number.isFinite(value) ? undefined : `${where(path)}expected a number, got ${kind(value)}`);
const int: Check = (value, path) => (Number.isSafeInteger(value) ? undefined : `${where(path)}expected an integer, got ${kind(value)}`);
/** zod's `z.custom(v => v !== null && typeof v === 'object')` (the SDK's AssertObjectSchema): arrays pass. */
const anyObject: Check = (value, path) => (typeof value === 'object' && value !== null ? undefined : `${where(path)}expected an object, got ${kind(value)}`);
/** zod's record / object: a plain object, not an array. */
const record: Check = (value, path) => (isObject(value) ? undefined : `${where(path)}expected an object, got ${kind(value)}`);
/** atob's alphabet, as the SDK's Base64Schema checks it. */
const base64: Check = (value, path) => {
  if (typeof value !== 'string') return `${where(path)}expected a base64 string, got ${kind(value)}`;
  try {
    atob(value);
    return undefined;
  } catch {
    return `${where(path)}invalid base64`;
  }
};

const literal =
  (expected: string): Check =>
  (value, path) =>
    value === expected ? undefined : `${where(path)}expected ${JSON.stringify(expected)}`;
const oneOf =
  (...allowed: string[]): Check =>
  (value, path) =>
    typeof value === 'string' && allowed.includes(value) ? undefined : `${where(path)}expected one of ${allowed.join(', ')}`;
/** Absent or undefined; null is refused, as zod's `.optional()` does. */
const optional =
  (check: Check): Check =>
  (value, path) =>
    value === undefined ? undefined : check(value, path);
const array =
  (item: Check): Check =>
  (value, path) => {
    if (!Array.isArray(value)) return `${where(path)}expected an array, got ${kind(value)}`;
    for (let i = 0; i < value.length; i++) {
      const wrong = item(value[i], `${path}[${i}]`);
      if (wrong) return wrong;
    }
    return undefined;
  };
/** zod's record: each value checked, but for a `__proto__` key (JSON.parse makes it an own key), which zod skips. */
const recordOf =
  (item: Check): Check =>
  (value, path) => {
    if (!isObject(value)) return `${where(path)}expected an object, got ${kind(value)}`;
    for (const key of Object.keys(value)) {
      if (key === '__proto__') continue;
      const wrong = item(value[key], path === '' ? key : `${path}.${key}`);
      if (wrong) return wrong;
    }
    return undefined;
  };
/** An object with these fields (others allowed, as zod's object strips them and loose/catchall keep them). */
const object =
  (fields: Record<string, Check>): Check =>
  (value, path) => {
    if (!isObject(value)) return `${where(path)}expected an object, got ${kind(value)}`;
    for (const key of Object.keys(fields)) {
      const wrong = fields[key]!(value[key], path === '' ? key : `${path}.${key}`);
      if (wrong) return wrong;
    }
    return undefined;
  };
/** An object with these fields and no other (zod's `.strict()`). */
const strictObject = (fields: Record<string, Check>): Check => {
  const fits = object(fields);
  return (value, path) => {
    const wrong = fits(value, path);
    if (wrong) return wrong;
    const extra = Object.keys(value as object).find((key) => !Object.hasOwn(fields, key));
    return extra === undefined ? undefined : `${where(path)}unexpected field ${extra}`;
  };
};
const firstOf =
  (what: string, ...checks: Check[]): Check =>
  (value, path) =>
    checks.some((check) => check(value, path) === undefined) ? undefined : `${where(path)}not a valid ${what}`;

// JSON-RPC 2.0 messages (the SDK's JSONRPCMessageSchema: request, notification, result, error; each strict).
const requestId: Check = firstOf('request id', str, int);
const progressToken = firstOf('progress token', str, int);
const requestMeta = object({ progressToken: optional(progressToken), 'io.modelcontextprotocol/related-task': optional(object({ taskId: str })) });
const params = optional(object({ _meta: optional(requestMeta) }));
const version = literal('2.0');
const isRequest = strictObject({ jsonrpc: version, id: requestId, method: str, params });
const isNotification = strictObject({ jsonrpc: version, method: str, params });
const isResult = strictObject({ jsonrpc: version, id: requestId, result: object({ _meta: optional(requestMeta) }) });
const isError = strictObject({ jsonrpc: version, id: optional(requestId), error: object({ code: int, message: str }) });

export type MessageKind = 'request' | 'notification' | 'result' | 'error';

/** What a parsed line is, or null when it is no JSON-RPC message the SDK would take. */
export function messageKind(value: unknown): MessageKind | null {
  if (isResult(value, '') === undefined) return 'result';
  if (isError(value, '') === undefined) return 'error';
  if (isRequest(value, '') === undefined) return 'request';
  if (isNotification(value, '') === undefined) return 'notification';
  return null;
}

// Results (the SDK's InitializeResultSchema, ListToolsResultSchema, CallToolResultSchema).
const icons = optional(array(object({ src: str, mimeType: optional(str), sizes: optional(array(str)), theme: optional(oneOf('light', 'dark')) })));
const meta = optional(record);
const capabilityObject = optional(anyObject);
const implementation = object({ name: str, title: optional(str), icons, version: str, websiteUrl: optional(str), description: optional(str) });
const serverCapabilities = object({
  experimental: optional(recordOf(anyObject)),
  logging: capabilityObject,
  completions: capabilityObject,
  prompts: optional(object({ listChanged: optional(bool) })),
  resources: optional(object({ subscribe: optional(bool), listChanged: optional(bool) })),
  tools: optional(object({ listChanged: optional(bool) })),
  tasks: optional(object({ list: capabilityObject, cancel: capabilityObject, requests: optional(object({ tools: optional(object({ call: capabilityObject })) })) })),
  extensions: optional(recordOf(anyObject)),
});
const resultBase = { _meta: optional(requestMeta) };
const initializeResult = object({ ...resultBase, protocolVersion: str, capabilities: serverCapabilities, serverInfo: implementation, instructions: optional(str) });

const objectSchema = object({ type: literal('object'), properties: optional(recordOf(anyObject)), required: optional(array(str)) });
const tool = object({
  name: str,
  title: optional(str),
  icons,
  description: optional(str),
  inputSchema: objectSchema,
  outputSchema: optional(objectSchema),
  annotations: optional(
    object({ title: optional(str), readOnlyHint: optional(bool), destructiveHint: optional(bool), idempotentHint: optional(bool), openWorldHint: optional(bool) }),
  ),
  execution: optional(object({ taskSupport: optional(oneOf('required', 'optional', 'forbidden')) })),
  _meta: meta,
});
const listToolsResult = object({ ...resultBase, nextCursor: optional(str), tools: array(tool) });

/**
 * zod's `z.iso.datetime({ offset: true })` (its regexes.js, the version the SDK is bundled with): a real
 * calendar date (29 February in leap years only), seconds required, `Z` or a `±hh:mm` offset.
 */
const ISO_DATETIME = new RegExp(
  '^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29' +
    '|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8])))' +
    'T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)$',
);
const annotations = optional(
  object({
    audience: optional(array(oneOf('user', 'assistant'))),
    priority: optional((value, path) => num(value, path) ?? ((value as number) < 0 || (value as number) > 1 ? `${where(path)}expected a number from 0 to 1` : undefined)),
    lastModified: optional((value, path) => str(value, path) ?? (ISO_DATETIME.test(value as string) ? undefined : `${where(path)}expected an ISO date-time`)),
  }),
);
const resourceContents = { uri: str, mimeType: optional(str), _meta: meta };
const contentBlock = firstOf(
  'content block (text, image, audio, resource_link or resource)',
  object({ type: literal('text'), text: str, annotations, _meta: meta }),
  object({ type: literal('image'), data: base64, mimeType: str, annotations, _meta: meta }),
  object({ type: literal('audio'), data: base64, mimeType: str, annotations, _meta: meta }),
  object({ type: literal('resource_link'), name: str, title: optional(str), icons, uri: str, description: optional(str), mimeType: optional(str), size: optional(num), annotations, _meta: meta }),
  object({ type: literal('resource'), resource: firstOf('resource', object({ ...resourceContents, text: str }), object({ ...resourceContents, blob: base64 })), annotations, _meta: meta }),
);
const callToolResult = object({ ...resultBase, content: optional(array(contentBlock)), structuredContent: optional(record), isError: optional(bool) });

export interface InitializeResult {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string };
  instructions?: string;
}
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  execution?: { taskSupport?: 'required' | 'optional' | 'forbidden' };
}
export interface ListToolsResult {
  tools: ListedTool[];
  nextCursor?: string;
}
export interface CallToolResult {
  [key: string]: unknown;
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Thrown for a result the SDK's schema would refuse: one line naming the method and the field. */
export class InvalidResultError extends Error {
  constructor(method: string, problem: string) {
    super(`invalid ${method} result from the server (${problem})`);
    this.name = 'InvalidResultError';
  }
}

function checked<T>(method: string, check: Check, value: unknown): T {
  const wrong = check(value, '');
  if (wrong) throw new InvalidResultError(method, wrong);
  return value as T;
}

export const initializeResultOf = (value: unknown) => checked<InitializeResult>('initialize', initializeResult, value);
export const listToolsResultOf = (value: unknown) => checked<ListToolsResult>('tools/list', listToolsResult, value);
/** `content` defaults to [] as in the SDK's schema. */
export function callToolResultOf(value: unknown): CallToolResult {
  const result = checked<CallToolResult>('tools/call', callToolResult, value);
  return result.content === undefined ? { ...result, content: [] } : result;
}
