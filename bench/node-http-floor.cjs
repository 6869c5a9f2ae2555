'use strict';
// SPEC §10 floor: the least any Node client can do for gatechat's piped one-shot — post the same request
// with node:http, split the SSE by hand, print the deltas. CommonJS and nothing else loaded, so its wall is
// Node's start-up plus one request. gatechat's wall is compared with it on the same Node in the same run.
// Usage: node bench/node-http-floor.cjs <base-url> <model> <prompt>
const http = require('node:http');

const [base, model, prompt] = process.argv.slice(2);
const body = JSON.stringify({ model, messages: [{ role: 'user', content: prompt }], stream: true, stream_options: { include_usage: true } });
const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer bench' };

const req = http.request(`${base}/chat/completions`, { method: 'POST', headers }, (res) => {
  if (res.statusCode !== 200) {
    process.stderr.write(`HTTP ${res.statusCode}\n`);
    process.exitCode = 1;
  }
  res.setEncoding('utf8');
  let pending = '';
  res.on('data', (chunk) => {
    pending += chunk;
    // One write per received chunk, as gatechat does: a write per delta would make the floor pay a
    // system call per token and flatter everything measured against it.
    let text = '';
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') continue;
      const delta = JSON.parse(data).choices[0]?.delta?.content;
      if (delta) text += delta;
    }
    if (text) process.stdout.write(text);
  });
  res.on('end', () => process.stdout.write('\n'));
});
req.on('error', (error) => {
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
});
req.end(body);
