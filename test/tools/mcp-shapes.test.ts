// The stdio client's checks (src/tools/mcp/shapes.ts) against the SDK's zod schemas they stand in for: the
// same messages and results accepted and refused, case by case and on seeded mutations; the framing (stdio-transport.ts's
// LineBuffer) against what the SDK's ReadBuffer makes of the same bytes; the protocol versions.
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import {
  CallToolResultSchema,
  InitializeResultSchema,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsResultSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION as OURS_LATEST, SUPPORTED_PROTOCOL_VERSIONS as OURS_SUPPORTED } from '../../src/tools/mcp/jsonrpc-client.js';
import { callToolResultOf, initializeResultOf, listToolsResultOf, messageKind } from '../../src/tools/mcp/shapes.js';
import { LineBuffer, MAX_LINE_BYTES, parseMessage } from '../../src/tools/mcp/stdio-transport.js';

const accepts = (check: (value: unknown) => unknown, value: unknown) => {
  try {
    check(value);
    return true;
  } catch {
    return false;
  }
};

const MESSAGES: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 'a', method: 'roots/list', params: {} },
  { jsonrpc: '2.0', id: 2, method: 'x', params: { _meta: { progressToken: 'p' }, other: [1] } },
  { jsonrpc: '2.0', id: 2, method: 'x', params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: '2.0', id: 2, method: 'x', params: [1] },
  { jsonrpc: '2.0', id: 2, method: 'x', params: null },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } },
  { jsonrpc: '2.0', method: 'notifications/message' },
  { jsonrpc: '2.0', method: 3 },
  { jsonrpc: '2.0', id: 0, result: {} },
  { jsonrpc: '2.0', id: 0, result: { tools: [], _meta: { any: 1 } } },
  { jsonrpc: '2.0', id: 0, result: { _meta: { progressToken: {} } } },
  { jsonrpc: '2.0', id: 0, result: [] },
  { jsonrpc: '2.0', id: 0, result: null },
  { jsonrpc: '2.0', id: 0, result: 'x' },
  { jsonrpc: '2.0', id: 0, result: {}, extra: 1 },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 0, result: {}, error: { code: 1, message: 'x' } },
  { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
  { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error', data: { line: 1 } } },
  { jsonrpc: '2.0', id: 3, error: { code: 1.5, message: 'x' } },
  { jsonrpc: '2.0', id: 3, error: { code: 1 } },
  { jsonrpc: '2.0', id: 3, error: 'x' },
  { jsonrpc: '1.0', id: 1, method: 'ping' },
  { id: 1, method: 'ping' },
  [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
  'ping',
  7,
  null,
];

const INITIALIZE: unknown[] = [
  { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } },
  { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true }, logging: {}, experimental: { x: {} } }, serverInfo: { name: 's', version: '1', title: 't' }, instructions: 'i', other: 1 },
  { protocolVersion: '2025-06-18', capabilities: { logging: [] }, serverInfo: { name: 's', version: '1' } },
  { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: 'yes' } }, serverInfo: { name: 's', version: '1' } },
  { protocolVersion: '2025-06-18', capabilities: { logging: true }, serverInfo: { name: 's', version: '1' } },
  { protocolVersion: '2025-06-18', capabilities: { tools: null }, serverInfo: { name: 's', version: '1' } },
  JSON.parse('{"protocolVersion":"2025-06-18","capabilities":{"experimental":{"__proto__":"x"}},"serverInfo":{"name":"s","version":"1"}}'),
  { protocolVersion: '2025-06-18', capabilities: { tasks: { list: {}, requests: { tools: { call: {} }, other: 1 } } }, serverInfo: { name: 's', version: '1' } },
  { protocolVersion: '2025-06-18', capabilities: { tasks: { requests: { tools: true } } }, serverInfo: { name: 's', version: '1' } },
  { protocolVersion: '2025-06-18', capabilities: { tasks: { requests: { tools: { call: 'yes' } } } }, serverInfo: { name: 's', version: '1' } },
  { protocolVersion: 2025, capabilities: {}, serverInfo: { name: 's', version: '1' } },
  { protocolVersion: '2025-06-18', serverInfo: { name: 's', version: '1' } },
  { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's' } },
  { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1', icons: [{ src: 'a.png' }] } },
  { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1', icons: [{}] } },
  { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1', icons: [{ src: 'a.png', theme: 'dark' }] } },
  { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1', icons: [{ src: 'a.png', theme: 'blue' }] } },
  { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' }, instructions: null },
];

const tool = (extra: Record<string, unknown> = {}) => ({ name: 't', inputSchema: { type: 'object' }, ...extra });
const LIST: unknown[] = [
  { tools: [] },
  { tools: [tool()], nextCursor: 'c' },
  { tools: [tool({ description: 'd', inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false } })] },
  { tools: [tool({ annotations: { readOnlyHint: true, title: 'T' }, execution: { taskSupport: 'optional' }, _meta: { a: 1 } })] },
  { tools: [tool({ outputSchema: { type: 'object', properties: { n: { type: 'string' } } } })] },
  { tools: [tool({ outputSchema: { type: 'array' } })] },
  { tools: [tool({ inputSchema: { type: 'string' } })] },
  { tools: [tool({ inputSchema: { type: 'object', properties: { a: 1 } } })] },
  { tools: [tool({ inputSchema: { type: 'object', properties: { a: [] } } })] },
  { tools: [tool({ inputSchema: { type: 'object', required: 'a' } })] },
  // JSON.parse makes `__proto__` an own key; zod's records pass over it.
  JSON.parse('{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"__proto__":true,"a":{}}}}]}'),
  JSON.parse('{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"__proto__":{},"a":1}}}]}'),
  { tools: [tool({ description: null })] },
  { tools: [tool({ annotations: { readOnlyHint: 'yes' } })] },
  { tools: [tool({ execution: { taskSupport: 'always' } })] },
  { tools: [tool({ icons: [{ src: 'a.png', theme: 'light' }] })] },
  { tools: [tool({ icons: [{ src: 'a.png', theme: 1 }] })] },
  { tools: [{ inputSchema: { type: 'object' } }] },
  { tools: [tool()], nextCursor: 1 },
  { tools: {} },
  {},
];

const CALL: unknown[] = [
  {},
  { content: [] },
  { content: [{ type: 'text', text: 'hi' }], isError: false },
  { content: [{ type: 'text', text: 'hi', annotations: { audience: ['user'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { priority: 2 } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { audience: ['robot'] } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: 'yesterday' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2025-01-01T00:00:00.123+02:00' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2025-01-01T00:00Z' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2025-01-01T00:00:00+0200' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2025-01-01T00:00:00+02' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2025-02-30T00:00:00Z' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2024-02-29T00:00:00Z' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2023-02-29T00:00:00Z' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2000-02-29T12:00:00-05:00' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '1900-02-29T00:00:00Z' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2025-01-01T24:00:00Z' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2025-01-01T23:59:60Z' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2025-01-01T00:00:00+24:00' } }] },
  { content: [{ type: 'text', text: 'hi', annotations: { lastModified: '2025-01-01T00:00:00' } }] },
  { content: [{ type: 'text' }] },
  { content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] },
  { content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] },
  { content: [{ type: 'audio', data: 'aGk=' }] },
  { content: [{ type: 'resource_link', uri: 'file:///a', name: 'a', size: 3 }] },
  { content: [{ type: 'resource_link', uri: 'file:///a' }] },
  { content: [{ type: 'resource_link', uri: 'file:///a', name: 'a', icons: [{ src: 'a.png', theme: 'night' }] }] },
  { content: [{ type: 'resource', resource: { uri: 'file:///a', text: 'x' } }] },
  { content: [{ type: 'resource', resource: { uri: 'file:///a', blob: 'aGk=' } }] },
  { content: [{ type: 'resource', resource: { uri: 'file:///a' } }] },
  { content: [{ type: 'video', data: 'x' }] },
  { content: 'nope' },
  { content: [], structuredContent: { n: 1 } },
  { content: [], structuredContent: [1] },
  { content: [], isError: 'yes' },
  { content: [], toolResult: 1 },
];

describe('shape checks agree with the SDK schemas', () => {
  it('JSON-RPC messages', () => {
    for (const message of MESSAGES) expect([message, messageKind(message) !== null]).toEqual([message, JSONRPCMessageSchema.safeParse(message).success]);
  });
  it('initialize results', () => {
    for (const result of INITIALIZE) expect([result, accepts(initializeResultOf, result)]).toEqual([result, InitializeResultSchema.safeParse(result).success]);
  });
  it('tools/list results', () => {
    for (const result of LIST) expect([result, accepts(listToolsResultOf, result)]).toEqual([result, ListToolsResultSchema.safeParse(result).success]);
  });
  it('tools/call results; content defaults to [] as in the SDK', () => {
    for (const result of CALL) expect([result, accepts(callToolResultOf, result)]).toEqual([result, CallToolResultSchema.safeParse(result).success]);
    expect(callToolResultOf({}).content).toEqual([]);
  });
  it('the protocol versions are the SDK\'s', () => {
    expect(OURS_LATEST).toBe(LATEST_PROTOCOL_VERSION);
    expect(OURS_SUPPORTED).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
  });
});

// Seeded mutations of full results and messages (every field the SDK's schemas name), for what the cases
// above did not think of: a field replaced by another value, dropped, or a known name added where it does
// not belong. Values come from JSON.parse, as from a server (so `__proto__` is an own key).
const ATOMS: unknown[] = [null, true, 0, 1, -1, 1.5, 2 ** 53, '', 'x', 'object', 'text', 'image', 'user', 'light', 'blue', 'required', '2.0', 'aGk=', 'not base64!',
  '2025-01-01T00:00:00Z', '2025-02-30T00:00:00Z', '2025-01-01T00:00Z', '2025-01-01T00:00:00+0200', [], {}, [1], ['x'], { a: 1 }, { type: 'object' }, { call: {} }, { tools: 1 }];
const FIELDS = ['_meta', 'progressToken', 'io.modelcontextprotocol/related-task', 'taskId', 'name', 'title', 'version', 'icons', 'src', 'mimeType', 'sizes', 'theme',
  'websiteUrl', 'description', 'experimental', 'logging', 'completions', 'prompts', 'resources', 'tools', 'tasks', 'list', 'cancel', 'requests', 'call', 'extensions',
  'listChanged', 'subscribe', 'instructions', 'type', 'properties', 'required', 'inputSchema', 'outputSchema', 'annotations', 'readOnlyHint', 'execution', 'taskSupport',
  'nextCursor', 'content', 'structuredContent', 'isError', 'text', 'data', 'uri', 'size', 'resource', 'blob', 'audience', 'priority', 'lastModified', 'jsonrpc', 'id',
  'method', 'params', 'result', 'error', 'code', 'message', '__proto__'];
const icon = { src: 'a.png', mimeType: 'image/png', sizes: ['1x1'], theme: 'light' };
const FULL = {
  initialize: {
    protocolVersion: '2025-06-18',
    capabilities: { experimental: { x: {} }, logging: {}, completions: {}, prompts: { listChanged: true }, resources: { subscribe: true, listChanged: false }, tools: { listChanged: true }, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }, extensions: { e: {} } },
    serverInfo: { name: 's', title: 't', version: '1', icons: [icon], websiteUrl: 'u', description: 'd' },
    instructions: 'i',
    _meta: { progressToken: 1, 'io.modelcontextprotocol/related-task': { taskId: 't' } },
  },
  list: {
    tools: [{ name: 't', title: 'T', icons: [icon], description: 'd', inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, outputSchema: { type: 'object', properties: {}, required: [] }, annotations: { title: 't', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }, execution: { taskSupport: 'optional' }, _meta: { a: 1 } }],
    nextCursor: 'c',
    _meta: {},
  },
  call: {
    content: [
      { type: 'text', text: 'x', annotations: { audience: ['user'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' }, _meta: {} },
      { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      { type: 'audio', data: 'aGk=', mimeType: 'audio/wav' },
      { type: 'resource_link', name: 'n', title: 't', icons: [icon], uri: 'u', description: 'd', mimeType: 'm', size: 3, annotations: {}, _meta: {} },
      { type: 'resource', resource: { uri: 'u', mimeType: 'm', text: 't', _meta: {} }, annotations: {} },
      { type: 'resource', resource: { uri: 'u', blob: 'aGk=' } },
    ],
    structuredContent: { a: 1 },
    isError: false,
    _meta: {},
  },
  messages: [
    { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: 'p' } } },
    { jsonrpc: '2.0', method: 'n', params: { a: 1 } },
    { jsonrpc: '2.0', id: 'x', result: { _meta: { progressToken: 1 } } },
    { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm', data: 1 } },
  ],
};

function mutations(seed: number) {
  // mulberry32: the same values on every run
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T,>(values: T[]) => values[Math.floor(random() * values.length)]!;
  const containers = (value: unknown, into: Array<Record<string, unknown>> = []) => {
    if (typeof value === 'object' && value !== null) {
      into.push(value as Record<string, unknown>);
      for (const item of Object.values(value)) containers(item, into);
    }
    return into;
  };
  // One to three changes, each at an object or array anywhere in the value: a field's value replaced, a field
  // dropped, or a known field added (defineProperty: `__proto__` too becomes an own key, as JSON.parse makes it).
  return (value: unknown) => {
    const out = JSON.parse(JSON.stringify(value)) as unknown;
    for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
      const node = pick(containers(out));
      const keys = Object.keys(node);
      const choice = random();
      const atom = structuredClone(pick(ATOMS));
      if (choice < 0.5 && keys.length > 0) node[pick(keys)] = atom;
      else if (choice < 0.7 && keys.length > 0) delete node[pick(keys)];
      else if (!Array.isArray(node)) Object.defineProperty(node, pick(FIELDS), { value: atom, enumerable: true, writable: true, configurable: true });
    }
    return JSON.parse(JSON.stringify(out)) as unknown;
  };
}

describe('shape checks agree with the SDK schemas on seeded mutations', () => {
  const RUNS = 2000;
  const disagreements = (ours: (value: unknown) => boolean, theirs: { safeParse(value: unknown): { success: boolean } }, full: unknown[], seed: number) => {
    const mutate = mutations(seed);
    const found: unknown[] = [];
    for (let i = 0; i < RUNS && found.length < 3; i++) {
      const value = mutate(full[i % full.length]);
      if (ours(value) !== theirs.safeParse(value).success) found.push(value);
    }
    return found;
  };
  it('JSON-RPC messages', () => expect(disagreements((value) => messageKind(value) !== null, JSONRPCMessageSchema, FULL.messages, 1)).toEqual([]));
  it('initialize results', () => expect(disagreements((value) => accepts(initializeResultOf, value), InitializeResultSchema, [FULL.initialize], 2)).toEqual([]));
  it('tools/list results', () => expect(disagreements((value) => accepts(listToolsResultOf, value), ListToolsResultSchema, [FULL.list], 3)).toEqual([]));
  it('tools/call results', () => expect(disagreements((value) => accepts(callToolResultOf, value), CallToolResultSchema, [FULL.call], 4)).toEqual([]));
});

describe('line framing', () => {
  it("splits the bytes into the lines the SDK's ReadBuffer reads: across chunks, several in one, CRLF, a character split between chunks", () => {
    const messages = [
      { jsonrpc: '2.0', id: 1, result: { text: 'é' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ];
    const bytes = Buffer.from(`${JSON.stringify(messages[0])}\n${JSON.stringify(messages[1])}\r\n${JSON.stringify(messages[2])}\n`);
    for (const size of [1, 2, 3, 7, 50, bytes.length]) {
      const ours = new LineBuffer();
      const theirs = new ReadBuffer();
      const oursMessages: unknown[] = [];
      const theirsMessages: unknown[] = [];
      for (let i = 0; i < bytes.length; i += size) {
        const chunk = bytes.subarray(i, i + size);
        oursMessages.push(...ours.append(chunk).map((line) => parseMessage(line)));
        theirs.append(chunk);
        for (let m = theirs.readMessage(); m !== null; m = theirs.readMessage()) theirsMessages.push(m);
      }
      expect(oursMessages).toEqual(messages);
      expect(theirsMessages).toEqual(messages);
    }
  });
  it('more than 10 MiB without a newline is an error, as in the SDK', () => {
    const lines = new LineBuffer();
    expect(lines.append(Buffer.alloc(MAX_LINE_BYTES, 'x'))).toEqual([]);
    expect(() => lines.append(Buffer.from('x'))).toThrow(/exceeded maximum size/);
    expect(lines.append(Buffer.from('{}\n'))).toEqual(['{}']); // starts over
  });
  it("counts a chunk before reading its lines, as the SDK's ReadBuffer does: a line ending past 10 MiB, or a complete line in a chunk that overflows, is an error", () => {
    const cases: Buffer[][] = [
      [Buffer.alloc(MAX_LINE_BYTES - 1, 'x'), Buffer.from('xx\n')],
      [Buffer.alloc(MAX_LINE_BYTES - 1, 'x'), Buffer.from('x\n')],
      [Buffer.concat([Buffer.from('{}\n'), Buffer.alloc(MAX_LINE_BYTES, 'x')])],
      [Buffer.concat([Buffer.from('{}\n'), Buffer.alloc(MAX_LINE_BYTES - 3, 'x')])],
    ];
    for (const chunks of cases) {
      const ours = new LineBuffer();
      const theirs = new ReadBuffer();
      const outcome = (append: (chunk: Buffer) => void) => {
        try {
          for (const chunk of chunks) append(chunk);
          return 'read';
        } catch (error) {
          return (error as Error).message;
        }
      };
      expect([chunks.map((c) => c.length), outcome((chunk) => ours.append(chunk))]).toEqual([chunks.map((c) => c.length), outcome((chunk) => theirs.append(chunk))]);
    }
  });
});
