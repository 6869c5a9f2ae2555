// The baseline for bench/batch.mjs: the same requests gatechat batch makes, as a plain loop over
// undici — one keep-alive Agent, N workers pulling lines from the same JSONL file, each POSTing a
// streamed Chat Completions request, reading the whole SSE body and writing one JSON line to stdout.
// No parsing of the stream beyond collecting its bytes: the least a client can do.
// Usage: node bench/batch-undici-baseline.mjs <base-url> <model> <input.jsonl> <concurrency>
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';

const [base, model, input, concurrencyText] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
const agent = new Agent();
const lines = createInterface({ input: createReadStream(input), crlfDelay: Infinity })[Symbol.asyncIterator]();
let lineNo = 0;

async function worker() {
  for (;;) {
    const next = await lines.next();
    if (next.done) return;
    const id = ++lineNo;
    const prompt = JSON.parse(next.value);
    const res = await request(`${base}/chat/completions`, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: prompt }], stream: true, stream_options: { include_usage: true } }),
    });
    let bytes = 0;
    for await (const chunk of res.body) bytes += chunk.length;
    if (!process.stdout.write(`${JSON.stringify({ id, status: res.statusCode, bytes })}\n`)) {
      await new Promise((resolve) => process.stdout.once('drain', resolve));
    }
  }
}

await Promise.all(Array.from({ length: concurrency }, worker));
await agent.close();
