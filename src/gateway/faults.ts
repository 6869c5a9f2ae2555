/**
 * HTTP-level replies: error envelopes in each interface's own shape, and the fault models that
 * fail before any answer byte (fail-*, html-502, flaky-K, the max_tokens rejection).
 */
import { STATUS_CODES } from 'node:http';
import type { ModelSpec } from './models.js';
import { contextTokens } from './text.js';
import type { Api } from './types.js';
import { chatError } from './wire-chat.js';
import { messagesError } from './wire-messages.js';

export interface ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface ErrorKind {
  chatType: string;
  chatCode: string | null;
  messagesType: string;
}

// The type/code each vendor uses for a status, so clients see what real gateways send.
function kindOf(status: number): ErrorKind {
  switch (status) {
    case 401:
      return { chatType: 'authentication_error', chatCode: 'invalid_api_key', messagesType: 'authentication_error' };
    case 403:
      return { chatType: 'permission_error', chatCode: 'permission_denied', messagesType: 'permission_error' };
    case 404:
      return { chatType: 'invalid_request_error', chatCode: 'model_not_found', messagesType: 'not_found_error' };
    case 413:
      return { chatType: 'invalid_request_error', chatCode: 'request_too_large', messagesType: 'request_too_large' };
    case 429:
      return { chatType: 'rate_limit_error', chatCode: 'rate_limit_exceeded', messagesType: 'rate_limit_error' };
    case 529:
      return { chatType: 'server_error', chatCode: 'overloaded', messagesType: 'overloaded_error' };
  }
  if (status >= 500) return { chatType: 'server_error', chatCode: status === 503 ? 'service_unavailable' : 'internal_error', messagesType: 'api_error' };
  return { chatType: 'invalid_request_error', chatCode: null, messagesType: 'invalid_request_error' };
}

export interface ErrorDetails {
  code?: string | null;
  param?: string | null;
  headers?: Record<string, string>;
}

export function errorReply(api: Api, status: number, message: string, details: ErrorDetails = {}): ErrorReply {
  const kind = kindOf(status);
  const envelope =
    api === 'chat'
      ? chatError(message, kind.chatType, details.code === undefined ? kind.chatCode : details.code, details.param ?? null)
      : messagesError(kind.messagesType, message);
  return {
    status,
    headers: { 'content-type': 'application/json', ...details.headers },
    body: JSON.stringify(envelope),
  };
}

/** The page nginx serves when its upstream is down: what a client meets behind a broken proxy. */
export const HTML_502_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n' +
  '<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n';

/** flaky-K: failures already served per exact model name; reset with the request log. */
export type FlakyCounters = Map<string, number>;

/**
 * busy-K: how long the refusal asks clients to wait, and how long every request is held before its
 * answer or its 429 (as an upstream takes a moment to refuse), so that a client that does not back
 * off shows up in the gateway's in-flight count.
 */
export const BUSY_RETRY_AFTER_MS = 200;
export const BUSY_HOLD_MS = 100;

export const UNSUPPORTED_MAX_TOKENS_MESSAGE =
  "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";

export const MAX_TOKENS_REQUIRED_MESSAGE = 'anthropic error: max_tokens: Field required';

/**
 * The reply for a model that fails before answering, or null when it answers. Runs after the
 * request was validated, as a real gateway's upstream would.
 */
export function failureFor(api: Api, spec: ModelSpec, body: Record<string, unknown>, flaky: FlakyCounters, inFlight: number): ErrorReply | null {
  const b = spec.behaviour;
  switch (b.kind) {
    case 'busy':
      // A gateway's concurrency limit: this request counts itself among those in flight.
      if (inFlight <= b.limit) return null;
      return errorReply(api, 429, `gatechat dev gateway: simulated 429: more than ${b.limit} requests in flight (model ${spec.name})`, {
        headers: { 'retry-after-ms': String(BUSY_RETRY_AFTER_MS) },
      });
    case 'fail': {
      const headers: Record<string, string> = {};
      if (b.retryAfter !== null) headers['retry-after'] = b.retryAfter;
      if (b.retryAfterMs !== null) headers['retry-after-ms'] = b.retryAfterMs;
      if (b.noRetry) headers['x-should-retry'] = 'false';
      const reason = STATUS_CODES[b.status] ?? 'Error';
      return errorReply(api, b.status, `gatechat dev gateway: simulated ${b.status} ${reason} (model ${spec.name})`, { headers });
    }
    case 'html-502':
      return { status: 502, headers: { 'content-type': 'text/html' }, body: HTML_502_PAGE };
    case 'flaky': {
      const served = flaky.get(spec.name) ?? 0;
      if (served >= b.failures) return null;
      flaky.set(spec.name, served + 1);
      return errorReply(
        api,
        503,
        `gatechat dev gateway: simulated 503 Service Unavailable, failure ${served + 1} of ${b.failures} (model ${spec.name})`,
      );
    }
    case 'max-completion-tokens':
      // Only Chat Completions has the two fields; the Messages interface always takes max_tokens.
      if (api === 'chat' && body.max_tokens !== undefined && body.max_tokens !== null) {
        return errorReply(api, 400, UNSUPPORTED_MAX_TOKENS_MESSAGE, { code: 'unsupported_parameter', param: 'max_tokens' });
      }
      return null;
    case 'context': {
      // A model with a small context window, refusing as the vendors do (SPEC §17): OpenAI's wording
      // and code on Chat Completions, Anthropic's on Messages.
      const input = contextTokens(body);
      const requested = typeof body.max_tokens === 'number' ? body.max_tokens : typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : 0;
      if (input + requested <= b.window) return null;
      return api === 'chat'
        ? errorReply(
            api,
            400,
            `This model's maximum context length is ${b.window} tokens. However, you requested ${input + requested} tokens (${input} in the messages, ${requested} in the completion). Please reduce the length of the messages or completion.`,
            { code: 'context_length_exceeded', param: 'messages' },
          )
        : errorReply(api, 400, `prompt is too long: ${input + requested} tokens > ${b.window} maximum`);
    }
    case 'max-tokens-required':
      // A gateway translating Chat Completions into Messages (Portkey with an Anthropic provider)
      // passes on the Messages interface's own complaint when max_tokens is missing.
      if (api === 'chat' && (body.max_tokens === undefined || body.max_tokens === null)) {
        return errorReply(api, 400, MAX_TOKENS_REQUIRED_MESSAGE, { code: null, param: 'max_tokens' });
      }
      return null;
    default:
      return null;
  }
}
