'use strict';
// The floor for bench/tools-start.mjs: the least an MCP client can do to list the tools of stdio servers —
// spawn them all at once, write `initialize`, then `notifications/initialized` and `tools/list` as raw
// JSON-RPC lines, close each server's stdin once its list arrives, and wait for every server to exit (the
// shutdown the MCP specification asks for, and what `gatechat tools` does). No SDK, no schemas, no output
// beyond a count: whatever this takes is the servers' own start-up and exit on this machine.
// CommonJS and nothing but node:child_process, so its own start is Node's.
// Usage: node bench/mcp-floor.cjs '<command> <args…>' ['<command> <args…>' …]   (arguments split on spaces)
const { spawn } = require('node:child_process');

const request = (id, method, params) => `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;
const initialize = request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp-floor', version: '1.0.0' } });

let tools = 0;
let failed = false;
for (const spec of process.argv.slice(2)) {
  const [command, ...args] = spec.split(' ');
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    pending += chunk;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const message = JSON.parse(pending.slice(0, end));
      pending = pending.slice(end + 1);
      if (message.id === 1) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${request(2, 'tools/list', {})}`);
      else if (message.id === 2) {
        tools += message.result?.tools?.length ?? 0;
        child.stdin.end();
      }
      // A server's own requests (roots, logging) are left unanswered, as by a client without those capabilities.
    }
  });
  child.on('exit', (code) => {
    if (code !== 0) failed = true;
  });
  child.stdin.write(initialize);
}
process.on('exit', () => {
  process.stdout.write(`${tools} tools\n`);
  if (failed || tools === 0) process.exitCode = 1;
});
