import { createReadStream } from 'node:fs';
import { UsageError } from '../../exit-codes.js';
import type { Api, ToolDefinition } from '../../protocol/events.js';
import { protocolFor } from '../../protocol/index.js';
import { idKey, parseBatchLines, readLines, type BatchItem } from '../../session/batch-input.js';
import type { IdKeys } from '../../session/batch-resume.js';
import { customIdFor, idHash, needsInput, type CustomIdRef } from '../../session/batch-custom-id.js';
import { openConversation } from '../../session/conversation.js';
import type { PlannedBatch } from '../../session/batch-remote-plan.js';
import type { Connection, StreamedBody } from '../../transport/http.js';
import { lineSessionSettings, type BatchLines } from './batch-lines.js';

/**
 * The input file's lines as vendor batch requests (SPEC §19). Each body is built the way a local
 * batch line's request is: the line's settings (BatchLines), a one-turn conversation's request()
 * and the interface's buildRequest() — only not streamed, since a batch answers whole. Nothing is
 * held: every pass reads the file again, one line at a time.
 */
export class RemoteRequests {
  constructor(
    private readonly input: string,
    private readonly lines: BatchLines,
    private readonly api: Api,
    private readonly conn: Connection,
    private readonly tools: ToolDefinition[] | undefined,
  ) {}

  /** The input's items from line `from` to `to` whose id is not in `skip`. */
  async *items(from: number, to: number, skip: IdKeys): AsyncGenerator<BatchItem> {
    for await (const parsed of parseBatchLines(readLines(createReadStream(this.input)))) {
      if (parsed.kind !== 'item') continue;
      const { item } = parsed;
      if (item.line < from) continue;
      if (item.line > to) return;
      if (!skip.has(idKey(item.id))) yield item;
    }
  }

  /** One request line of the batch input: `{"custom_id","method","url","body"}` or `{"custom_id","params"}`. */
  async requestLine(item: BatchItem): Promise<string> {
    const problem = this.lines.problemOf(item);
    if (problem !== null) throw new UsageError(`batch: line ${item.line}: ${problem}; nothing was sent`);
    const { settings, attachments, answerSchema } = await this.lines.prepare(item);
    if (settings.api !== this.api) {
      throw new UsageError(`batch: line ${item.line}: its model ${settings.model} uses --api ${settings.api}, the batch --api ${this.api}; a remote batch runs on one interface`);
    }
    const conversation = openConversation({
      conn: this.conn,
      settings: { ...lineSessionSettings(item, settings), stream: false },
      maxTokensField: settings.maxTokensField,
      tools: this.tools,
      answerSchema,
      store: null,
      record: false,
    });
    // A batch answers whole: the vendors refuse or ignore `stream` there.
    const { stream: _stream, stream_options: _options, ...body } = protocolFor(this.api).buildRequest(conversation.request(item.prompt, attachments));
    const customId = customIdFor(item);
    return JSON.stringify(this.api === 'chat' ? { custom_id: customId, method: 'POST', url: '/v1/chat/completions', body } : { custom_id: customId, params: body });
  }

  /** Each request's size, for planning the split (lines from `from` on). */
  async *sizes(from: number, skip: IdKeys): AsyncGenerator<{ line: number; bytes: number }> {
    for await (const item of this.items(from, Number.MAX_SAFE_INTEGER, skip)) yield { line: item.line, bytes: Buffer.byteLength(await this.requestLine(item)) };
  }

  /**
   * One planned batch's body, produced as the upload reads it: a multipart JSONL file (chat) or a
   * `{"requests":[…]}` document (messages). Its length is the planned one; a file changed since the
   * plan fails the upload (Content-Length mismatch) rather than sending something else.
   */
  upload(plan: PlannedBatch, skip: IdKeys): StreamedBody {
    const boundary = `gatechat-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
    const [head, tail, separator] =
      this.api === 'chat'
        ? [
            `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="gatechat-batch-${plan.first_line}.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n`,
            `\r\n--${boundary}--\r\n`,
            '\n',
          ]
        : ['{"requests":[', ']}', ','];
    // Chat: every line ends with its newline; messages: a comma between requests (one fewer).
    const length = Buffer.byteLength(head) + plan.bytes + Buffer.byteLength(tail) - (this.api === 'chat' ? 0 : 1);
    const self = this;
    return {
      contentType: this.api === 'chat' ? `multipart/form-data; boundary=${boundary}` : 'application/json',
      length,
      async *open() {
        // Lines go out in ~64 KiB pieces, not one buffer and one socket write each: a 100 000-line
        // upload's run took 12.2 → 8.7 s (bench/batch-remote.mjs, chat).
        let pending = head;
        let first = true;
        for await (const item of self.items(plan.first_line, plan.last_line, skip)) {
          const line = await self.requestLine(item);
          pending += self.api === 'chat' ? `${line}\n` : `${first ? '' : ','}${line}`;
          first = false;
          if (pending.length >= 65_536) {
            yield Buffer.from(pending);
            pending = '';
          }
        }
        yield Buffer.from(pending + tail);
      },
    };
  }

  /**
   * The items whose id or schema a result cannot carry (`l7-x…`), read back from the input: only
   * those are kept, so a 100 000-line input with plain ids keeps nothing.
   */
  async lookup(): Promise<(ref: Extract<CustomIdRef, { fromInput: true }>) => BatchItem | undefined> {
    const kept = new Map<number, BatchItem>();
    for await (const item of this.items(1, Number.MAX_SAFE_INTEGER, new Set())) {
      if (needsInput(item)) kept.set(item.line, { line: item.line, id: item.id, prompt: '', ...(item.schema !== undefined ? { schema: item.schema } : {}) });
    }
    return (ref) => {
      const item = kept.get(ref.line);
      return item && idHash(item.id) === ref.idHash ? item : undefined;
    };
  }
}
