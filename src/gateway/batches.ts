/**
 * The dev gateway's Batch APIs (SPEC §19): OpenAI-style `/v1/files` + `/v1/batches` (endpoint
 * /v1/chat/completions) and Anthropic-style `/v1/messages/batches`, shaped as the vendors document
 * them (checked against the official SDKs in test/gateway/batch-sdk.test.ts). Everything lives in
 * memory; every line is answered at creation and the batch reports itself running until
 * BATCH_RUN_MS has passed, so clients see in_progress, then the end, within a second.
 *
 * Fault models, chosen by a line's model: `batch-expire` (the line is never run; its batch ends
 * expired and the line is reported expired), `batch-poll-500` (the line answers like echo; the
 * batch's first two retrieves answer 500), `batch-hold` (the line answers like echo; the batch keeps
 * running for HOLD_MS with its last line unfinished, until cancelled). A failing line is any model that fails on its own
 * (`fail-500`, an unknown model).
 */
import { randomId } from './answer.js';
import { answerWhole } from './completion.js';
import { errorReply, type ErrorReply, type FlakyCounters } from './faults.js';
import type { Api } from './types.js';

/** How long a batch reports itself running. */
export const BATCH_RUN_MS = 600;
/** The vendors' per-batch limits (SPEC §19). */
export const MAX_FILE_REQUESTS = 50_000;
export const MAX_MESSAGES_BATCH_REQUESTS = 100_000;
export const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;

const EXPIRE_MODEL = 'batch-expire';
const POLL_500_MODEL = 'batch-poll-500';
const POLL_500_TIMES = 2;
const HOLD_MODEL = 'batch-hold';
/** How long a batch with a `batch-hold` line runs: longer than any test waits, so only a cancel ends it. */
export const HOLD_MS = 60_000;
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  createdAt: number;
  content: Buffer;
}

type LineResult =
  | { kind: 'answered'; customId: string; status: number; body: unknown }
  | { kind: 'expired'; customId: string }
  | { kind: 'cancelled'; customId: string };

interface Batch {
  id: string;
  api: Api;
  createdMs: number;
  lines: LineResult[];
  expires: boolean;
  holds: boolean;
  poll500Left: number;
  cancelledMs: number | null;
  /** Chat: the uploaded input and the metadata given at creation. */
  inputFileId?: string;
  metadata?: unknown;
  /** Set once the batch ended (chat: its output and error files). */
  outputFileId?: string | null;
  errorFileId?: string | null;
  /** Chat: the input file failed validation. */
  failedErrors?: { code: string; message: string; line: number | null }[];
}

function json(status: number, value: unknown): ErrorReply {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

const seconds = (ms: number) => Math.floor(ms / 1000);
const iso = (ms: number) => new Date(ms).toISOString();
const DAY_MS = 24 * 3600 * 1000;

/** A multipart/form-data body's fields (the openai SDK uploads files this way). */
function parseMultipart(raw: Buffer, contentType: string): Map<string, { filename?: string; data: Buffer }> | null {
  const boundary = contentType.match(/boundary=(?:"([^"]+)"|([^;]+))/i);
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const fields = new Map<string, { filename?: string; data: Buffer }>();
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) return null;
    const part = raw.subarray(start + 2, next - 2); // past CRLF, before the CRLF that precedes the delimiter
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd < 0) return null;
    const headers = part.subarray(0, headerEnd).toString('utf8');
    const name = headers.match(/name="([^"]*)"/i)?.[1];
    const filename = headers.match(/filename="([^"]*)"/i)?.[1];
    if (name !== undefined) fields.set(name, { filename, data: part.subarray(headerEnd + 4) });
    at = next;
  }
  return fields;
}

export class BatchStore {
  private readonly files = new Map<string, StoredFile>();
  private readonly batches = new Map<string, Batch>();

  constructor(private readonly flaky: FlakyCounters) {}

  /** True when the path belongs to the Batch APIs. */
  static owns(path: string): boolean {
    return path === '/v1/files' || path.startsWith('/v1/files/') || path === '/v1/batches' || path.startsWith('/v1/batches/') || path === '/v1/messages/batches' || path.startsWith('/v1/messages/batches/');
  }

  /** Answers one Batch API request. `host` is the Host header (results_url is absolute). */
  handle(method: string, path: string, raw: Buffer | null, contentType: string, host: string): ErrorReply | { status: number; headers: Record<string, string>; body: string } {
    const api: Api = path.startsWith('/v1/messages/') ? 'messages' : 'chat';
    if (raw === null) return errorReply(api, 413, `gatechat dev gateway: request body over ${MAX_UPLOAD_BYTES} bytes`);
    const notFound = (what: string) => errorReply(api, 404, `gatechat dev gateway: no such ${what}`, { code: 'not_found' });
    const methodNotAllowed = (allow: string) => errorReply(api, 405, `gatechat dev gateway: ${method} ${path} is not supported; use ${allow}`, { code: 'method_not_allowed', headers: { allow } });
    const parts = path.split('/').slice(2); // ['files', id?, 'content'?] / ['batches', id?, 'cancel'?] / ['messages','batches', id?, …]
    if (parts[0] === 'files') {
      if (parts.length === 1) return method === 'POST' ? this.upload(raw, contentType) : methodNotAllowed('POST');
      const file = this.files.get(parts[1]);
      if (!file) return notFound(`file ${parts[1]}`);
      if (parts.length === 2) return method === 'GET' ? json(200, this.fileObject(file)) : methodNotAllowed('GET');
      if (parts.length === 3 && parts[2] === 'content') {
        return method === 'GET' ? { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: file.content.toString('utf8') } : methodNotAllowed('GET');
      }
      return notFound(`path ${path}`);
    }
    if (parts[0] === 'batches') {
      if (parts.length === 1) return method === 'POST' ? this.createChat(raw) : methodNotAllowed('POST');
      const batch = this.batches.get(parts[1]);
      if (!batch || batch.api !== 'chat') return notFound(`batch ${parts[1]}`);
      if (parts.length === 2) return method === 'GET' ? this.retrieve(batch, host) : methodNotAllowed('GET');
      if (parts.length === 3 && parts[2] === 'cancel') return method === 'POST' ? this.cancel(batch, host) : methodNotAllowed('POST');
      return notFound(`path ${path}`);
    }
    // /v1/messages/batches…
    const rest = parts.slice(2);
    if (rest.length === 0) return method === 'POST' ? this.createMessages(raw) : methodNotAllowed('POST');
    const batch = this.batches.get(rest[0]);
    if (!batch || batch.api !== 'messages') return notFound(`message batch ${rest[0]}`);
    if (rest.length === 1) return method === 'GET' ? this.retrieve(batch, host) : methodNotAllowed('GET');
    if (rest.length === 2 && rest[1] === 'cancel') return method === 'POST' ? this.cancel(batch, host) : methodNotAllowed('POST');
    if (rest.length === 2 && rest[1] === 'results') {
      if (method !== 'GET') return methodNotAllowed('GET');
      if (!this.ended(batch)) return errorReply('messages', 400, `Message Batch ${batch.id} has not yet ended (processing_status: ${this.messagesStatus(batch)})`);
      return { status: 200, headers: { 'content-type': 'application/binary' }, body: this.messagesResults(batch) };
    }
    return notFound(`path ${path}`);
  }

  private upload(raw: Buffer, contentType: string): ErrorReply {
    const fields = /multipart\/form-data/i.test(contentType) ? parseMultipart(raw, contentType) : null;
    if (!fields) return errorReply('chat', 400, 'expected a multipart/form-data body with the fields "file" and "purpose"');
    const purpose = fields.get('purpose')?.data.toString('utf8');
    const file = fields.get('file');
    if (!file) return errorReply('chat', 400, "Missing required parameter: 'file'.", { param: 'file' });
    if (purpose !== 'batch') return errorReply('chat', 400, `purpose: the dev gateway stores files for purpose 'batch' only, got ${JSON.stringify(purpose ?? null)}`, { param: 'purpose' });
    const stored: StoredFile = { id: randomId('file-'), filename: file.filename ?? 'upload.jsonl', purpose, createdAt: Date.now(), content: Buffer.from(file.data) };
    this.files.set(stored.id, stored);
    return json(200, this.fileObject(stored));
  }

  private fileObject(file: StoredFile): Record<string, unknown> {
    return {
      id: file.id,
      object: 'file',
      bytes: file.content.length,
      created_at: seconds(file.createdAt),
      expires_at: null,
      filename: file.filename,
      purpose: file.purpose,
      status: 'processed',
      status_details: null,
    };
  }

  private storeOutput(name: string, lines: string[]): string | null {
    if (lines.length === 0) return null;
    const file: StoredFile = { id: randomId('file-'), filename: name, purpose: 'batch_output', createdAt: Date.now(), content: Buffer.from(`${lines.join('\n')}\n`) };
    this.files.set(file.id, file);
    return file.id;
  }

  /** Runs each request now (the answers wait in memory until the batch reports itself ended). */
  private runLines(api: Api, requests: { customId: string; body: Record<string, unknown> }[]): { lines: LineResult[]; expires: boolean; holds: boolean; poll500: boolean } {
    let expires = false;
    let holds = false;
    let poll500 = false;
    const lines = requests.map(({ customId, body }): LineResult => {
      if (body.model === EXPIRE_MODEL) {
        expires = true;
        return { kind: 'expired', customId };
      }
      if (body.model === POLL_500_MODEL || body.model === HOLD_MODEL) {
        if (body.model === HOLD_MODEL) holds = true;
        else poll500 = true;
        body = { ...body, model: 'echo' };
      }
      // A batch answers whole: stream is not an option there (the vendors refuse or ignore it).
      const { stream: _stream, stream_options: _options, ...whole } = body;
      return { kind: 'answered', customId, ...answerWhole(api, whole, this.flaky) };
    });
    return { lines, expires, holds, poll500 };
  }

  private createChat(raw: Buffer): ErrorReply {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return errorReply('chat', 400, 'We could not parse the JSON body of your request.', { code: 'invalid_json' });
    }
    if (body?.endpoint !== '/v1/chat/completions') {
      return errorReply('chat', 400, `endpoint: the dev gateway runs batches of /v1/chat/completions only, got ${JSON.stringify(body?.endpoint ?? null)}`, { param: 'endpoint' });
    }
    if (body.completion_window !== '24h') return errorReply('chat', 400, "completion_window: expected '24h'", { param: 'completion_window' });
    const input = typeof body.input_file_id === 'string' ? this.files.get(body.input_file_id) : undefined;
    if (!input) return errorReply('chat', 404, `No such File object: ${String(body.input_file_id)}`, { param: 'input_file_id', code: 'not_found' });
    const batch: Batch = { id: randomId('batch_'), api: 'chat', createdMs: Date.now(), lines: [], expires: false, holds: false, poll500Left: 0, cancelledMs: null, inputFileId: input.id, metadata: body.metadata ?? null };
    const requests: { customId: string; body: Record<string, unknown> }[] = [];
    const errors: NonNullable<Batch['failedErrors']> = [];
    const seen = new Set<string>();
    const text = input.content.toString('utf8').split('\n');
    text.forEach((lineText, index) => {
      if (lineText.trim() === '' || errors.length >= 10) return;
      const line = index + 1;
      let request: { custom_id?: unknown; method?: unknown; url?: unknown; body?: unknown };
      try {
        request = JSON.parse(lineText) as typeof request;
      } catch {
        errors.push({ code: 'invalid_json_line', message: 'This line is not parseable as valid JSON.', line });
        return;
      }
      if (typeof request.custom_id !== 'string' || request.custom_id === '') errors.push({ code: 'missing_required_parameter', message: 'custom_id is required', line });
      else if (seen.has(request.custom_id)) errors.push({ code: 'duplicate_custom_id', message: `The custom_id ${request.custom_id} is duplicated`, line });
      else if (request.method !== 'POST') errors.push({ code: 'invalid_method', message: 'method must be POST', line });
      else if (request.url !== '/v1/chat/completions') errors.push({ code: 'invalid_url', message: 'url must match the batch endpoint /v1/chat/completions', line });
      else if (typeof request.body !== 'object' || request.body === null) errors.push({ code: 'invalid_request', message: 'body must be a JSON object', line });
      else {
        seen.add(request.custom_id);
        requests.push({ customId: request.custom_id, body: request.body as Record<string, unknown> });
      }
    });
    if (requests.length > MAX_FILE_REQUESTS) errors.push({ code: 'too_many_requests', message: `a batch holds at most ${MAX_FILE_REQUESTS} requests`, line: null });
    if (errors.length === 0 && requests.length === 0) errors.push({ code: 'empty_file', message: 'The input file is empty.', line: null });
    if (errors.length) batch.failedErrors = errors;
    else Object.assign(batch, this.runFlags(this.runLines('chat', requests)));
    this.batches.set(batch.id, batch);
    return json(200, this.chatObject(batch));
  }

  private runFlags(run: { lines: LineResult[]; expires: boolean; holds: boolean; poll500: boolean }): Pick<Batch, 'lines' | 'expires' | 'holds' | 'poll500Left'> {
    return { lines: run.lines, expires: run.expires, holds: run.holds, poll500Left: run.poll500 ? POLL_500_TIMES : 0 };
  }

  private createMessages(raw: Buffer): ErrorReply {
    let body: { requests?: unknown };
    try {
      body = JSON.parse(raw.toString('utf8')) as typeof body;
    } catch {
      return errorReply('messages', 400, 'There was an issue with your request body: not valid JSON');
    }
    if (!Array.isArray(body?.requests) || body.requests.length === 0) return errorReply('messages', 400, 'requests: Field required (at least one request)');
    if (body.requests.length > MAX_MESSAGES_BATCH_REQUESTS) return errorReply('messages', 413, `requests: at most ${MAX_MESSAGES_BATCH_REQUESTS} per Message Batch`);
    const seen = new Set<string>();
    const requests: { customId: string; body: Record<string, unknown> }[] = [];
    for (const [index, request] of (body.requests as { custom_id?: unknown; params?: unknown }[]).entries()) {
      const customId = request?.custom_id;
      if (typeof customId !== 'string' || !CUSTOM_ID.test(customId)) {
        return errorReply('messages', 400, `requests.${index}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
      }
      if (seen.has(customId)) return errorReply('messages', 400, `requests.${index}.custom_id: Duplicate custom_id ${customId}`);
      seen.add(customId);
      if (typeof request.params !== 'object' || request.params === null) return errorReply('messages', 400, `requests.${index}.params: Field required`);
      requests.push({ customId, body: request.params as Record<string, unknown> });
    }
    const batch: Batch = { id: randomId('msgbatch_'), api: 'messages', createdMs: Date.now(), cancelledMs: null, ...this.runFlags(this.runLines('messages', requests)) };
    this.batches.set(batch.id, batch);
    return json(200, this.messagesObject(batch, ''));
  }

  /** The batch's end: the run time passed, or a cancel (seen once the next retrieve comes). */
  private endMs(batch: Batch): number {
    return batch.cancelledMs ?? batch.createdMs + (batch.holds ? HOLD_MS : BATCH_RUN_MS);
  }

  private ended(batch: Batch): boolean {
    return batch.failedErrors !== undefined || Date.now() >= this.endMs(batch);
  }

  /** Lines answered by now: they finish in order, evenly over the run time. */
  private doneCount(batch: Batch, at = Date.now()): number {
    const share = Math.min(1, Math.max(0, (at - batch.createdMs) / BATCH_RUN_MS));
    const done = Math.floor(batch.lines.length * share);
    // A held batch keeps its last line unfinished until it ends.
    return batch.holds && at < this.endMs(batch) ? Math.min(done, batch.lines.length - 1) : done;
  }

  private retrieve(batch: Batch, host: string): ErrorReply {
    if (batch.poll500Left > 0) {
      batch.poll500Left--;
      return errorReply(batch.api, 500, 'gatechat dev gateway: simulated failure while polling (model batch-poll-500)');
    }
    return json(200, batch.api === 'chat' ? this.chatObject(batch) : this.messagesObject(batch, host));
  }

  private cancel(batch: Batch, host: string): ErrorReply {
    if (!this.ended(batch) && batch.cancelledMs === null) {
      const now = Date.now();
      const done = this.doneCount(batch, now);
      batch.lines = batch.lines.map((line, index) => (index >= done ? { kind: 'cancelled', customId: line.customId } : line));
      // Cancelling takes a moment, as on the vendors' side: the next retrieve sees it ended.
      batch.cancelledMs = now + 50;
    }
    return json(200, batch.api === 'chat' ? this.chatObject(batch) : this.messagesObject(batch, host));
  }

  private chatStatus(batch: Batch): string {
    if (batch.failedErrors) return 'failed';
    const now = Date.now();
    if (batch.cancelledMs !== null) return now >= batch.cancelledMs ? 'cancelled' : 'cancelling';
    if (now < batch.createdMs + 50) return 'validating';
    if (now < this.endMs(batch)) return 'in_progress';
    return batch.expires ? 'expired' : 'completed';
  }

  private finishChat(batch: Batch): void {
    if (batch.outputFileId !== undefined) return;
    const ok: string[] = [];
    const failed: string[] = [];
    for (const line of batch.lines) {
      const id = randomId('batch_req_');
      if (line.kind === 'answered') {
        const record = JSON.stringify({ id, custom_id: line.customId, response: { status_code: line.status, request_id: randomId('req_'), body: line.body }, error: null });
        (line.status === 200 ? ok : failed).push(record);
      } else {
        const error =
          line.kind === 'expired'
            ? { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' }
            : { code: 'batch_cancelled', message: 'This request was cancelled before it could be executed.' };
        failed.push(JSON.stringify({ id, custom_id: line.customId, response: null, error }));
      }
    }
    batch.outputFileId = this.storeOutput(`${batch.id}_output.jsonl`, ok);
    batch.errorFileId = this.storeOutput(`${batch.id}_error.jsonl`, failed);
  }

  private chatObject(batch: Batch): Record<string, unknown> {
    const status = this.chatStatus(batch);
    const ended = ['completed', 'expired', 'cancelled', 'failed'].includes(status);
    if (ended && !batch.failedErrors) this.finishChat(batch);
    const total = batch.lines.length;
    const done = ended ? total : this.doneCount(batch);
    const failed = batch.lines.slice(0, done).filter((line) => line.kind !== 'answered' || line.status !== 200).length;
    const end = seconds(this.endMs(batch));
    return {
      id: batch.id,
      object: 'batch',
      endpoint: '/v1/chat/completions',
      errors: batch.failedErrors ? { object: 'list', data: batch.failedErrors.map((e) => ({ code: e.code, message: e.message, param: null, line: e.line })) } : null,
      input_file_id: batch.inputFileId,
      completion_window: '24h',
      status,
      output_file_id: ended ? (batch.outputFileId ?? null) : null,
      error_file_id: ended ? (batch.errorFileId ?? null) : null,
      created_at: seconds(batch.createdMs),
      in_progress_at: batch.failedErrors ? null : seconds(batch.createdMs),
      expires_at: seconds(batch.createdMs + DAY_MS),
      finalizing_at: ended && !batch.failedErrors ? end : null,
      completed_at: status === 'completed' ? end : null,
      failed_at: status === 'failed' ? seconds(batch.createdMs) : null,
      expired_at: status === 'expired' ? end : null,
      cancelling_at: batch.cancelledMs !== null ? seconds(batch.cancelledMs) : null,
      cancelled_at: status === 'cancelled' ? end : null,
      request_counts: { total, completed: done - failed, failed },
      metadata: batch.metadata ?? null,
    };
  }

  private messagesStatus(batch: Batch): 'in_progress' | 'canceling' | 'ended' {
    if (this.ended(batch)) return 'ended';
    return batch.cancelledMs !== null ? 'canceling' : 'in_progress';
  }

  private messagesObject(batch: Batch, host: string): Record<string, unknown> {
    const status = this.messagesStatus(batch);
    const ended = status === 'ended';
    const done = ended ? batch.lines.length : this.doneCount(batch);
    const counts = { processing: batch.lines.length - done, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    for (const line of batch.lines.slice(0, done)) {
      if (line.kind === 'expired') counts.expired++;
      else if (line.kind === 'cancelled') counts.canceled++;
      else if (line.status === 200) counts.succeeded++;
      else counts.errored++;
    }
    return {
      id: batch.id,
      type: 'message_batch',
      processing_status: status,
      request_counts: counts,
      ended_at: ended ? iso(this.endMs(batch)) : null,
      created_at: iso(batch.createdMs),
      expires_at: iso(batch.createdMs + DAY_MS),
      archived_at: null,
      cancel_initiated_at: batch.cancelledMs !== null ? iso(batch.cancelledMs) : null,
      results_url: ended ? `http://${host}/v1/messages/batches/${batch.id}/results` : null,
    };
  }

  private messagesResults(batch: Batch): string {
    return batch.lines
      .map((line) => {
        if (line.kind === 'expired') return { custom_id: line.customId, result: { type: 'expired' } };
        if (line.kind === 'cancelled') return { custom_id: line.customId, result: { type: 'canceled' } };
        if (line.status === 200) return { custom_id: line.customId, result: { type: 'succeeded', message: line.body } };
        return { custom_id: line.customId, result: { type: 'errored', error: line.body } };
      })
      .map((record) => `${JSON.stringify(record)}\n`)
      .join('');
  }
}
