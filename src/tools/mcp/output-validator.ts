import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

// The check of a tool's structured result against its `outputSchema` (the SDK's ajv validator). The SDK
// compiles every such schema (ajv code generation) as soon as the tools are listed: for the two reference
// servers that was ~70 ms of gatechat's CPU during start-up, spent while the other servers were still
// booting on the same cores, for tools a run mostly never calls. Here a schema is compiled on its tool's
// first result instead; the check itself is the SDK's, unchanged. A schema that cannot be compiled now
// fails that tool's calls (an error result naming why) rather than the whole server's start. Its own
// module: the stdio client (jsonrpc-client.ts) loads it, and ajv with it, only for a first such result.

/** The SDK's ajv validator, each schema compiled when first used; one ajv per server, made on first use. */
export function lazyOutputValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      let compiled: JsonSchemaValidator<T> | undefined;
      return (input) => {
        compiled ??= (ajv ??= new AjvJsonSchemaValidator()).getValidator<T>(schema);
        return compiled(input);
      };
    },
  };
}
