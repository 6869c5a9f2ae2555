import type { Prices } from '../protocol/cost.js';
import { ExitCode, GatechatError } from '../exit-codes.js';
import { HttpError } from '../transport/errors.js';
import { endpointInBaseUrlHint } from '../transport/base-url.js';
import { withDeadline } from '../transport/deadline.js';
import { sendRequest, type Connection } from '../transport/http.js';

export interface ModelInfo {
  id: string;
  owned_by?: string;
  /** Unix seconds (OpenAI `created`; Anthropic's `created_at` converted). */
  created?: number;
  /** Anthropic's human-readable name. */
  display_name?: string;
  /** Context window in tokens (OpenRouter `context_length`, LiteLLM `max_input_tokens`). */
  context_length?: number;
  /** USD per token (OpenRouter `pricing.prompt` / `.completion`, LiteLLM `input_cost_per_token` / `output_cost_per_token`). */
  input_price?: number;
  output_price?: number;
  /** USD per token of cached input (OpenRouter `pricing.input_cache_read` / `_write`, LiteLLM `cache_*_input_token_cost`). */
  cache_read_price?: number;
  cache_write_price?: number;
  /** The gateway's own object, untouched (`gatechat models --json` prints these). */
  raw: unknown;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** A finite number ≥ 0, given as a number or (OpenRouter's prices) a decimal string. */
function amount(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The first of `keys` found in any of `sources`, as an amount. */
function firstAmount(sources: Array<Record<string, unknown> | undefined>, keys: string[]): number | undefined {
  for (const source of sources) {
    for (const key of keys) {
      const found = amount(source?.[key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

// Anthropic-style lists page with has_more/last_id; a runaway gateway must not loop forever.
const MAX_PAGES = 20;

function toModel(item: unknown): ModelInfo | null {
  if (typeof item === 'string') return item === '' ? null : { id: item, raw: item };
  const object = record(item);
  if (!object) return null;
  // LiteLLM's /model/info names it model_name; OpenAI, OpenRouter and Anthropic use id.
  const id = [object.id, object.model_name, object.name].find((v): v is string => typeof v === 'string' && v !== '');
  if (id === undefined) return null;
  const model: ModelInfo = { id, raw: item };
  if (typeof object.owned_by === 'string') model.owned_by = object.owned_by;
  if (typeof object.created === 'number') model.created = object.created;
  else if (typeof object.created_at === 'string' && !Number.isNaN(Date.parse(object.created_at))) {
    model.created = Math.floor(Date.parse(object.created_at) / 1000);
  }
  if (typeof object.display_name === 'string') model.display_name = object.display_name;
  const info = record(object.model_info);
  const pricing = record(object.pricing);
  const context = firstAmount([object, info, record(object.top_provider)], ['context_length', 'max_input_tokens']);
  if (context !== undefined) model.context_length = context;
  const input = firstAmount([pricing, object, info], ['prompt', 'input_cost_per_token']);
  if (input !== undefined) model.input_price = input;
  const output = firstAmount([pricing, object, info], ['completion', 'output_cost_per_token']);
  if (output !== undefined) model.output_price = output;
  const cacheRead = firstAmount([pricing, object, info], ['input_cache_read', 'cache_read_input_token_cost']);
  if (cacheRead !== undefined) model.cache_read_price = cacheRead;
  const cacheWrite = firstAmount([pricing, object, info], ['input_cache_write', 'cache_creation_input_token_cost']);
  if (cacheWrite !== undefined) model.cache_write_price = cacheWrite;
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
export function listModels(conn: Connection, signal?: AbortSignal, log?: (line: string) => void): Promise<ModelInfo[]> {
  // --max-time bounds the whole listing, every page.
  return withDeadline(conn.maxTimeMs, signal, (bounded) => listPages(conn, bounded, log));
}

async function listPages(conn: Connection, signal: AbortSignal | undefined, log: ((line: string) => void) | undefined): Promise<ModelInfo[]> {
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

/** A listed model's prices in USD per million tokens (SPEC §16), when the list gives input and output. */
export function pricesOf(model: ModelInfo): Prices | undefined {
  if (model.input_price === undefined || model.output_price === undefined) return undefined;
  const perMillion = (perToken: number) => Math.round(perToken * 1e6 * 1e9) / 1e9;
  return {
    in: perMillion(model.input_price),
    out: perMillion(model.output_price),
    ...(model.cache_read_price !== undefined ? { cacheRead: perMillion(model.cache_read_price) } : {}),
    ...(model.cache_write_price !== undefined ? { cacheWrite: perMillion(model.cache_write_price) } : {}),
  };
}

/** Every priced model of a list, by id. */
export function listedPrices(models: ModelInfo[]): Record<string, Prices> {
  const prices: Record<string, Prices> = {};
  for (const model of models) {
    const found = pricesOf(model);
    if (found && model.id !== '__proto__') prices[model.id] = found;
  }
  return prices;
}
