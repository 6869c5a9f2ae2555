// The dev gateway's Batch APIs (SPEC §19), driven by the vendors' own SDKs over loopback: if a shape
// differed from what they document, these calls would throw or the typed fields would be missing.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useGateway } from './support.js';

const gateway = useGateway();

const openai = () => new OpenAI({ apiKey: 'test', baseURL: `${gateway().url}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: 'test', baseURL: gateway().url, maxRetries: 0 });

function chatLine(customId: string, model: string, prompt: string): string {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: prompt }] } });
}

async function until<T>(poll: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await poll();
    if (done(value)) return value;
    await sleep(100);
  }
  throw new Error('batch did not end');
}

describe('OpenAI files + batches through the openai SDK', () => {
  it('uploads, runs, reports a failing line in the error file, downloads both', async () => {
    const client = openai();
    const input = [chatLine('a', 'echo', 'hello one'), chatLine('b', 'fail-500', 'x'), chatLine('c', 'echo', 'hello three')].join('\n') + '\n';
    const file = await client.files.create({ file: await toFile(Buffer.from(input), 'in.jsonl'), purpose: 'batch' });
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', bytes: Buffer.byteLength(input), filename: 'in.jsonl' });
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 't' } });
    expect(created).toMatchObject({ object: 'batch', endpoint: '/v1/chat/completions', input_file_id: file.id, completion_window: '24h', metadata: { job: 't' } });
    expect(['validating', 'in_progress']).toContain(created.status);
    const ended = await until(() => client.batches.retrieve(created.id), (b) => b.status === 'completed');
    expect(ended.request_counts).toEqual({ total: 3, completed: 2, failed: 1 });
    const output = (await (await client.files.content(ended.output_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(output.map((l) => l.custom_id)).toEqual(['a', 'c']);
    expect(output[0]).toMatchObject({ id: expect.stringMatching(/^batch_req_/), error: null, response: { status_code: 200, body: { object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'hello one' } }] } } });
    const errors = (await (await client.files.content(ended.error_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ custom_id: 'b', response: { status_code: 500, body: { error: { type: 'server_error' } } } });
  });

  it('an expired batch reports its unrun lines with batch_expired; cancel ends a running batch', async () => {
    const client = openai();
    const upload = async (text: string) => client.files.create({ file: await toFile(Buffer.from(text), 'in.jsonl'), purpose: 'batch' });
    const expiring = await client.batches.create({ input_file_id: (await upload(`${chatLine('a', 'echo', 'hi')}\n${chatLine('b', 'batch-expire', 'late')}\n`)).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const expired = await until(() => client.batches.retrieve(expiring.id), (b) => b.status === 'expired');
    const errors = (await (await client.files.content(expired.error_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(errors).toEqual([expect.objectContaining({ custom_id: 'b', response: null, error: { code: 'batch_expired', message: expect.any(String) } })]);
    expect(expired.output_file_id).not.toBeNull();

    const running = await client.batches.create({ input_file_id: (await upload(`${chatLine('a', 'echo', 'hi')}\n`)).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const cancelling = await client.batches.cancel(running.id);
    expect(cancelling.status).toBe('cancelling');
    const cancelled = await until(() => client.batches.retrieve(running.id), (b) => b.status === 'cancelled');
    const cancelledLines = (await (await client.files.content(cancelled.error_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(cancelledLines[0]).toMatchObject({ custom_id: 'a', error: { code: 'batch_cancelled' } });
  });

  it('a 500 while polling (batch-poll-500) is an error the SDK raises, and polling again succeeds', async () => {
    const client = openai();
    const file = await client.files.create({ file: await toFile(Buffer.from(`${chatLine('a', 'batch-poll-500', 'still here')}\n`), 'in.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await expect(client.batches.retrieve(batch.id)).rejects.toMatchObject({ status: 500 });
    await expect(client.batches.retrieve(batch.id)).rejects.toMatchObject({ status: 500 });
    const ended = await until(() => client.batches.retrieve(batch.id), (b) => b.status === 'completed');
    const line = JSON.parse((await (await client.files.content(ended.output_file_id!)).text()).trim());
    expect(line.response.body.choices[0].message.content).toBe('still here');
  });

  it('an input file with a bad line fails the batch with the line named', async () => {
    const client = openai();
    const file = await client.files.create({ file: await toFile(Buffer.from(`${chatLine('a', 'echo', 'x')}\nnot json\n`), 'in.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.status).toBe('failed');
    expect(batch.errors?.data).toEqual([expect.objectContaining({ code: 'invalid_json_line', line: 2 })]);
  });
});

describe('Anthropic Message Batches through @anthropic-ai/sdk', () => {
  it('creates, polls, streams results with succeeded, errored and expired lines', async () => {
    const client = anthropic();
    const params = (model: string, text: string) => ({ model, max_tokens: 100, messages: [{ role: 'user' as const, content: text }] });
    const created = await client.messages.batches.create({
      requests: [
        { custom_id: 'one', params: params('echo', 'hello one') },
        { custom_id: 'two', params: params('fail-500', 'x') },
        { custom_id: 'three', params: params('batch-expire', 'late') },
      ],
    });
    expect(created).toMatchObject({ type: 'message_batch', processing_status: 'in_progress', results_url: null, archived_at: null });
    expect(Date.parse(created.created_at)).not.toBeNaN();
    const ended = await until(() => client.messages.batches.retrieve(created.id), (b) => b.processing_status === 'ended');
    expect(ended.request_counts).toEqual({ processing: 0, succeeded: 1, errored: 1, canceled: 0, expired: 1 });
    const results = [];
    for await (const line of await client.messages.batches.results(created.id)) results.push(line);
    expect(results.map((r) => [r.custom_id, r.result.type])).toEqual([
      ['one', 'succeeded'],
      ['two', 'errored'],
      ['three', 'expired'],
    ]);
    const first = results[0].result;
    expect(first.type === 'succeeded' && first.message.content).toEqual([{ type: 'text', text: 'hello one' }]);
    const second = results[1].result;
    expect(second.type === 'errored' && second.error).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });

  it('cancel ends a running batch with its lines canceled; a bad custom_id is refused', async () => {
    const client = anthropic();
    const created = await client.messages.batches.create({ requests: [{ custom_id: 'x', params: { model: 'echo', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } }] });
    const cancelling = await client.messages.batches.cancel(created.id);
    expect(cancelling.processing_status).toBe('canceling');
    expect(cancelling.cancel_initiated_at).not.toBeNull();
    await until(() => client.messages.batches.retrieve(created.id), (b) => b.processing_status === 'ended');
    const results = [];
    for await (const line of await client.messages.batches.results(created.id)) results.push(line);
    expect(results).toEqual([{ custom_id: 'x', result: { type: 'canceled' } }]);
    await expect(
      client.messages.batches.create({ requests: [{ custom_id: 'has space', params: { model: 'echo', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } }] }),
    ).rejects.toMatchObject({ status: 400 });
  });
});
