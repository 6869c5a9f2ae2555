import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { VERSION } from '../../version.js';
import { lazyOutputValidator } from './output-validator.js';

// The SDK's client, for servers at a URL only (http-connect.ts): stdio servers get jsonrpc-client.ts,
// which does not load the SDK's zod schemas. Output schemas are compiled lazily (output-validator.ts).

export function newClient(): Client {
  return new Client({ name: 'gatechat', version: VERSION }, { jsonSchemaValidator: lazyOutputValidator() });
}
