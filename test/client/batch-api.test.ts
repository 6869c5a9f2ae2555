// The Batch API answers (SPEC §19) as gatechat reads them. A batch's id and status are printed on the
// terminal (progress, `batch status`, `--detach`) and saved beside the output: a gateway that puts an
// escape sequence in them is refused, not drawn.
import { describe, expect, it } from 'vitest';
import { chatBatch, messagesBatch } from '../../src/client/batch-api.js';
import type { Connection } from '../../src/transport/http.js';

const conn: Connection = { baseUrl: 'http://127.0.0.1:9/v1', auth: 'bearer', headers: {}, timeouts: { connectMs: 1000, headersMs: 1000, idleMs: 1000 }, retries: 0 };
const chat = (patch: Record<string, unknown>) => ({ id: 'batch_1', object: 'batch', status: 'in_progress', request_counts: { total: 3, completed: 1, failed: 0 }, ...patch });
const messages = (patch: Record<string, unknown>) => ({ id: 'msgbatch_1', type: 'message_batch', processing_status: 'in_progress', request_counts: { processing: 2, succeeded: 1, errored: 0, canceled: 0, expired: 0 }, ...patch });

describe('a batch as the gateway describes it', () => {
  it('plain ids and statuses are read as given', () => {
    expect(chatBatch(chat({}))).toMatchObject({ id: 'batch_1', status: 'in_progress', ended: false, counts: { total: 3, done: 1, failed: 0 } });
    expect(messagesBatch(messages({}), conn)).toMatchObject({ id: 'msgbatch_1', status: 'in_progress', counts: { total: 3, done: 1 } });
  });

  for (const bad of ['\u001b]0;pwned\u0007', 'in_progress\u009b31m', 'a\nb', '', 'x'.repeat(257)]) {
    it(`an id or status ${JSON.stringify(bad.slice(0, 20))} is refused with exit 6`, () => {
      for (const read of [() => chatBatch(chat({ id: bad })), () => chatBatch(chat({ status: bad })), () => messagesBatch(messages({ id: bad }), conn), () => messagesBatch(messages({ processing_status: bad }), conn)]) {
        expect(read).toThrow(/not what its Batch API documents: batch "(id|status|processing_status)" missing or not plain text/);
        try {
          read();
        } catch (error) {
          expect((error as { exitCode: number }).exitCode).toBe(6);
        }
      }
    });
  }
});
