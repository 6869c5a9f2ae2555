import { ExitCode, GatechatError } from '../exit-codes.js';
import { ResultAccumulator } from '../protocol/accumulate.js';
import type { Api, ChatEvent } from '../protocol/events.js';
import { protocolFor } from '../protocol/index.js';
import { isRecord, tryParseJson } from '../protocol/json.js';
import { httpErrorFrom } from '../transport/errors.js';
import { schemaMismatchError, type AnswerValidator } from './answer-schema.js';
import { answerToolAsText, reportedError } from './conversation.js';
import type { TurnOutcome } from './types.js';

/**
 * One line of a batch's results (SPEC §19), before it is matched to its input line:
 * - chat (`/files/{id}/content`): `{"custom_id", "response": {"status_code", "body"}, "error"}`;
 * - messages (`results_url`): `{"custom_id", "result": {"type": "succeeded"|"errored"|"expired"|"canceled", …}}`.
 */
export type ResultLine =
  | { customId: unknown; kind: 'answer'; body: unknown }
  | { customId: unknown; kind: 'refused'; status: number; body: unknown }
  | { customId: unknown; kind: 'not-run'; how: 'expired' | 'cancelled'; message: string };

/** Anthropic's error types, as the HTTP status a synchronous request would have had. */
const MESSAGES_ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

const NOT_RUN = {
  expired: 'expired: the batch ended before this request ran; rerun to submit it again',
  cancelled: 'cancelled: the batch was cancelled before this request ran; rerun to submit it again',
};

/** null for a line that is not JSON or not a result at all. */
export function parseResultLine(api: Api, text: string): ResultLine | null {
  const parsed = tryParseJson(text);
  if (!parsed.ok || !isRecord(parsed.value)) return null;
  const value = parsed.value;
  const customId = value.custom_id;
  if (api === 'chat') {
    const response = isRecord(value.response) ? value.response : null;
    if (response && typeof response.status_code === 'number') {
      return response.status_code >= 200 && response.status_code < 300
        ? { customId, kind: 'answer', body: response.body }
        : { customId, kind: 'refused', status: response.status_code, body: response.body };
    }
    const error = isRecord(value.error) ? value.error : {};
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent — a code that is not text equals neither name below, and neither does any stand-in for none
    const code = typeof error.code === 'string' ? error.code : '';
    if (code === 'batch_expired') return { customId, kind: 'not-run', how: 'expired', message: NOT_RUN.expired };
    if (code === 'batch_cancelled') return { customId, kind: 'not-run', how: 'cancelled', message: NOT_RUN.cancelled };
    // Any other request-level error (no response at all): the gateway's own words, as a server error.
    return { customId, kind: 'refused', status: 500, body: { error } };
  }
  const result = isRecord(value.result) ? value.result : null;
  if (!result) return null;
  switch (result.type) {
    case 'succeeded':
      return { customId, kind: 'answer', body: result.message };
    case 'errored': {
      const inner = isRecord(result.error) && isRecord(result.error.error) ? result.error.error : {};
      // Own keys only: a type such as "constructor" must not find Object's method (a function for a status).
      const status = typeof inner.type === 'string' && Object.hasOwn(MESSAGES_ERROR_STATUS, inner.type) ? MESSAGES_ERROR_STATUS[inner.type] : 500;
      return { customId, kind: 'refused', status, body: result.error };
    }
    case 'expired':
      return { customId, kind: 'not-run', how: 'expired', message: NOT_RUN.expired };
    case 'canceled':
      return { customId, kind: 'not-run', how: 'cancelled', message: NOT_RUN.cancelled };
    default:
      return null;
  }
}

/**
 * The line's outcome, as a local batch would have recorded it: an answer is decoded with the
 * interface's own response parser (the --no-stream path), checked against its schema; a refused
 * request is the HTTP error a synchronous request would have raised (same message, same exit code).
 */
export function outcomeOf(line: ResultLine, api: Api, options: { secrets: string[]; answerSchema?: { check: AnswerValidator } }): TurnOutcome {
  const acc = new ResultAccumulator();
  const timings = { firstTokenMs: null, totalMs: 0 };
  const failed = (status: TurnOutcome['status'], error: GatechatError): TurnOutcome => ({
    status,
    error,
    result: acc.result({ api, cid: null, outcome: status === 'cancelled' ? 'cancelled' : 'error' }),
    timings,
  });
  if (line.kind === 'refused') {
    // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent — the body is JSON.stringify's text, which only an html content type would read differently (and there is no request id header to find)
    return failed('error', httpErrorFrom(line.status, { 'content-type': 'application/json' }, JSON.stringify(line.body ?? null), options.secrets));
  }
  if (line.kind === 'not-run') {
    return line.how === 'cancelled' ? failed('cancelled', new GatechatError(line.message, ExitCode.interrupted)) : failed('error', new GatechatError(line.message, ExitCode.server));
  }
  let streamError: ChatEvent | undefined;
  for (const raw of protocolFor(api).parseResponse(line.body)) {
    const event = options.answerSchema ? answerToolAsText(raw) : raw;
    if (event.type === 'error') streamError ??= event;
    acc.add(event);
  }
  if (streamError) return failed('error', reportedError(streamError, false));
  const result = acc.result({ api, cid: null, outcome: 'complete' });
  if (!options.answerSchema) return { status: 'complete', result, timings };
  const check = options.answerSchema.check(result.text);
  return { status: 'complete', result, timings, data: check.data ?? null, ...(check.ok ? {} : { error: schemaMismatchError(check) }) };
}
