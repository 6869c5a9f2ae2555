import { ExitCode, GatechatError } from '../exit-codes.js';
import { HttpError } from '../transport/errors.js';
import { endpointInBaseUrlHint } from '../transport/base-url.js';
import { sendRequest, type Connection } from '../transport/http.js';

export interface ModelInfo {
  id: string;
  owned_by?: string;
  /** Unix seconds (OpenAI `created`; Anthropic's `created_at` converted). */
  created?: number;
  /** Anthropic's human-readable name. */
  display_name?: string;
}

// Anthropic-style lists page with has_more/last_id; a runaway gateway must not loop forever.
const MAX_PAGES = 20;

function toModel(item: unknown): ModelInfo | null {
  if (typeof item === 'string') return item === '' ? null : { id: item };
  if (typeof item !== 'object' || item === null) return null;
  const record = item as Record<string, unknown>;
  const id = typeof record.id === 'string' ? record.id : typeof record.name === 'string' ? record.name : null;
  if (id === null || id === '') return null;
  const model: ModelInfo = { id };
  if (typeof record.owned_by === 'string') model.owned_by = record.owned_by;
  if (typeof record.created === 'number') model.created = record.created;
  else if (typeof record.created_at === 'string' && !Number.isNaN(Date.parse(record.created_at))) {
    model.created = Math.floor(Date.parse(record.created_at) / 1000);
  }
  if (typeof record.display_name === 'string') model.display_name = record.display_name;
  return model;
}

interface Page {
  items: unknown[];
  nextAfter: string | null;
}

function readPage(body: unknown, url: string): Page {
  if (Array.isArray(body)) return { items: body, nextAfter: null };
  if (typeof body === 'object' && body !== null) {
    const record = body as Record<string, unknown>;
    const items = Array.isArray(record.data) ? record.data : Array.isArray(record.models) ? record.models : null;
    if (items !== null) {
      const nextAfter = record.has_more === true && typeof record.last_id === 'string' ? record.last_id : null;
      return { items, nextAfter };
    }
  }
  throw new GatechatError(`GET ${url}: the gateway's answer is not a model list`, ExitCode.server);
}

/** `GET {base}/models`: OpenAI `{data}`, Anthropic `{data, has_more, last_id}`, or a bare array. */
export async function listModels(conn: Connection, signal?: AbortSignal, log?: (line: string) => void): Promise<ModelInfo[]> {
  const models: ModelInfo[] = [];
  let after: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const path: string = after === null ? '/models' : `/models?after_id=${encodeURIComponent(after)}`;
    const url = `${conn.baseUrl}${path}`;
    let text: string;
    let contentType: string;
    try {
      const response = await sendRequest({ conn, method: 'GET', path, signal, log });
      contentType = response.headers['content-type'] ?? '';
      text = await response.text();
    } catch (error) {
      if (error instanceof HttpError && (error.status === 404 || error.status === 405)) {
        throw new GatechatError(
          `this gateway does not offer a model list (GET ${url}: HTTP ${error.status})`,
          ExitCode.rejected,
          endpointInBaseUrlHint(conn.baseUrl) ?? 'pass the model id directly: gatechat -m <model> …',
        );
      }
      throw error;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      const what = contentType.includes('html') ? 'an HTML page' : contentType ? `${contentType.split(';')[0]}` : 'a body that is not JSON';
      throw new GatechatError(`GET ${url}: the gateway answered with ${what} instead of a JSON model list`, ExitCode.server, 'check the base URL: gatechat config get base-url');
    }
    const { items, nextAfter } = readPage(body, url);
    for (const item of items) {
      const model = toModel(item);
      if (model !== null) models.push(model);
    }
    if (nextAfter === null || items.length === 0) break;
    after = nextAfter;
  }
  return models;
}
