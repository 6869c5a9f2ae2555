import { ExitCode, GatechatError } from '../exit-codes.js';
import type { Api } from '../protocol/events.js';
import { isRecord } from '../protocol/json.js';
import { sendRequest, type Connection, type StreamedBody } from '../transport/http.js';

/**
 * The vendors' Batch APIs (SPEC §19) as gatechat drives them: OpenAI's `/files` + `/batches`
 * (endpoint /v1/chat/completions) for `--api chat`, Anthropic's `/messages/batches` for
 * `--api messages`. Both are reduced to one view: a status, counts, and where the results are.
 */
export interface RemoteBatch {
  id: string;
  /** The vendor's own word: validating, in_progress, finalizing, completed, expired, cancelling, cancelled, failed; in_progress, canceling, ended. */
  status: string;
  ended: boolean;
  counts: { total: number; done: number; failed: number };
  /** Ended: the result files (chat: output then errors) or the Messages results path. */
  results: string[];
  /** Chat: the batch itself failed (its input file refused): the gateway's reasons. */
  errors?: string;
}

const NEWLINE = Buffer.from('\n');
const CHAT_ENDED = new Set(['completed', 'expired', 'cancelled', 'failed']);

function invalid(what: string): GatechatError {
  return new GatechatError(`the gateway's batch answer is not what its Batch API documents: ${what}`, ExitCode.server);
}

/**
 * An id or status the gateway gave: printed on the terminal (progress, `batch status`, `--detach`) and
 * saved beside the output, so plain text only — a control character (an escape sequence) is refused.
 */
function plainField(value: unknown, name: string): string {
  // eslint-disable-next-line no-control-regex
  if (typeof value !== 'string' || value === '' || value.length > 256 || /[\u0000-\u001f\u007f-\u009f]/.test(value)) {
    throw invalid(`batch "${name}" missing or not plain text`);
  }
  return value;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

export function chatBatch(body: unknown): RemoteBatch {
  if (!isRecord(body)) throw invalid('not a JSON object');
  const id = plainField(body.id, 'id');
  const status = plainField(body.status, 'status');
  const counts = isRecord(body.request_counts) ? body.request_counts : {};
  const failed = count(counts.failed);
  const ended = CHAT_ENDED.has(status);
  const errors = isRecord(body.errors) && Array.isArray(body.errors.data)
    ? body.errors.data.map((e) => (isRecord(e) ? `${typeof e.line === 'number' ? `line ${e.line}: ` : ''}${String(e.message ?? e.code ?? '')}` : '')).join('; ')
    : undefined;
  const files = ended ? [body.output_file_id, body.error_file_id].filter((id): id is string => typeof id === 'string' && id !== '') : [];
  return {
    id,
    status,
    ended,
    counts: { total: count(counts.total), done: count(counts.completed) + failed, failed },
    results: files.map((file) => `/files/${encodeURIComponent(file)}/content`),
    ...(status === 'failed' ? { errors: errors || 'no reason given' } : {}),
  };
}

export function messagesBatch(body: unknown, conn: Connection): RemoteBatch {
  if (!isRecord(body)) throw invalid('not a JSON object');
  const id = plainField(body.id, 'id');
  const status = plainField(body.processing_status, 'processing_status');
  const c = isRecord(body.request_counts) ? body.request_counts : {};
  const failed = count(c.errored) + count(c.canceled) + count(c.expired);
  const done = count(c.succeeded) + failed;
  const ended = status === 'ended';
  return {
    id,
    status,
    ended,
    counts: { total: done + count(c.processing), done, failed },
    results: ended ? [resultsPath(body.results_url, id, conn)] : [],
  };
}

/**
 * The batch's `results_url` when it lies under the base URL (the key goes nowhere else, SPEC §5.2),
 * else the documented `/messages/batches/{id}/results` on the base URL.
 */
function resultsPath(url: unknown, id: string, conn: Connection): string {
  const fallback = `/messages/batches/${encodeURIComponent(id)}/results`;
  if (typeof url !== 'string') return fallback;
  try {
    const base = new URL(conn.baseUrl);
    const target = new URL(url);
    const prefix = base.pathname.replace(/\/$/, '');
    if (target.origin === base.origin && target.pathname.startsWith(`${prefix}/`)) return `${target.pathname.slice(prefix.length)}${target.search}`;
  } catch {
    // Not a URL: the documented path.
  }
  return fallback;
}

export class BatchApi {
  constructor(
    private readonly conn: Connection,
    readonly api: Api,
    private readonly log?: (line: string) => void,
  ) {}

  private async call(method: 'GET' | 'POST', path: string, options: { body?: unknown; upload?: StreamedBody; signal?: AbortSignal } = {}): Promise<unknown> {
    const response = await sendRequest({ conn: this.conn, method, path, body: options.body, upload: options.upload, signal: options.signal, log: this.log });
    const text = await response.text();
    try {
      return JSON.parse(text);
    } catch {
      throw invalid(`${method} ${path} answered ${text.length === 0 ? 'nothing' : 'with something that is not JSON'}`);
    }
  }

  private view(body: unknown): RemoteBatch {
    return this.api === 'chat' ? chatBatch(body) : messagesBatch(body, this.conn);
  }

  /**
   * Creates one batch from a request body streamed as it is built: a JSONL file uploaded to
   * `/files` then `/batches` (chat), or `{"requests": […]}` to `/messages/batches`.
   */
  async create(upload: StreamedBody, signal?: AbortSignal): Promise<{ batch: RemoteBatch; inputFileId?: string }> {
    if (this.api === 'messages') return { batch: this.view(await this.call('POST', '/messages/batches', { upload, signal })) };
    const file = await this.call('POST', '/files', { upload, signal });
    if (!isRecord(file) || typeof file.id !== 'string') throw invalid('the uploaded file has no "id"');
    const body = { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { created_by: 'gatechat batch --remote' } };
    return { batch: this.view(await this.call('POST', '/batches', { body, signal })), inputFileId: file.id };
  }

  async retrieve(id: string, signal?: AbortSignal): Promise<RemoteBatch> {
    return this.view(await this.call('GET', `${this.batchesPath()}/${encodeURIComponent(id)}`, { signal }));
  }

  async cancel(id: string, signal?: AbortSignal): Promise<RemoteBatch> {
    return this.view(await this.call('POST', `${this.batchesPath()}/${encodeURIComponent(id)}/cancel`, { signal }));
  }

  /**
   * An ended batch's results as they download, its files one after the other (each ends a line, so
   * a newline between them is harmless): one result file of 200 MB is never held whole.
   */
  async *results(batch: RemoteBatch, signal?: AbortSignal): AsyncGenerator<Buffer> {
    for (const path of batch.results) {
      const response = await sendRequest({ conn: this.conn, method: 'GET', path, signal, log: this.log });
      try {
        for await (const chunk of response.body) yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        yield NEWLINE;
      } finally {
        response.close();
      }
    }
  }

  private batchesPath(): string {
    return this.api === 'chat' ? '/batches' : '/messages/batches';
  }
}
