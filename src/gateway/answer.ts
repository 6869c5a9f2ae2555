import { randomBytes } from 'node:crypto';
import { MAX_SLOW_WORDS, type Behaviour } from './models.js';
import {
  bigTokens,
  contextTokens,
  firstToolName,
  inputWords,
  lastUserText,
  loremTokens,
  noTokens,
  takeTokens,
  tokenize,
  tokensOf,
} from './text.js';
import type { Answer, Api, Finish, Tokens, ToolCallAnswer } from './types.js';
import { AGENT_THINKING, agentCall, firstUserText, toolNames, toolResultCount, trailingToolResults } from './agent.js';
import { brokenSample, requestedSchema, sampleFor } from './json-document.js';

export const THINK_TEXT = 'The user wants their words back. I will repeat the last user message exactly as written.';
const SLOW_DEFAULT_WORDS = 50;
// Cut faults answer a little more than N words so the fault always lands mid-answer.
const CUT_MARGIN_WORDS = 50;
// error-event / error-chunk send this many words before the error.
export const WORDS_BEFORE_ERROR = 3;

export type AnswerResult = { ok: true; answer: Answer } | { ok: false; message: string; param: string | null };

export function randomId(prefix: string): string {
  return prefix + randomBytes(12).toString('hex');
}

/** Splits the arguments JSON into 3+ pieces the way real streams do (key, then words of the value). */
function toolCall(api: Api, name: string, input: string): ToolCallAnswer {
  const value = JSON.stringify(input);
  const fragments = ['{"input": ', ...tokenize(value), '}'];
  return { id: randomId(api === 'chat' ? 'call_' : 'toolu_'), name, arguments: fragments.join(''), fragments };
}

function content(behaviour: Behaviour, body: Record<string, unknown>, limit: number | null): { reasoning: Tokens; text: Tokens } {
  switch (behaviour.kind) {
    case 'lorem':
      return { reasoning: noTokens, text: loremTokens(behaviour.words) };
    case 'big':
      return { reasoning: noTokens, text: bigTokens(behaviour.mib) };
    case 'slow':
      // slow-N is sized by max_tokens itself (a timing fixture), so it never ends with `length`.
      return { reasoning: noTokens, text: loremTokens(Math.min(limit ?? SLOW_DEFAULT_WORDS, MAX_SLOW_WORDS)) };
    case 'think':
      return { reasoning: tokensOf(tokenize(THINK_TEXT)), text: tokensOf(tokenize(lastUserText(body))) };
    case 'cut':
      return { reasoning: noTokens, text: loremTokens(behaviour.after + CUT_MARGIN_WORDS) };
    case 'error-event':
    case 'error-chunk':
      return { reasoning: noTokens, text: loremTokens(WORDS_BEFORE_ERROR + CUT_MARGIN_WORDS) };
    case 'json':
      // Answered before content() is reached (buildJsonAnswer); here only for exhaustiveness.
      return { reasoning: noTokens, text: noTokens };
    case 'echo':
    case 'tool':
    case 'agent':
    case 'max-completion-tokens':
    case 'max-tokens-required':
    case 'context':
    case 'no-done':
    case 'keepalive':
    case 'flaky':
    case 'busy':
    case 'fail':
    case 'html-502':
      return { reasoning: noTokens, text: tokensOf(tokenize(lastUserText(body))) };
    default: {
      const never: never = behaviour;
      return never;
    }
  }
}

/**
 * The deterministic answer for a request: one token per word, cut at `limit` (max_tokens or
 * max_completion_tokens) with finish `length` when the answer is longer.
 */
export function buildAnswer(api: Api, behaviour: Behaviour, body: Record<string, unknown>, limit: number | null): AnswerResult {
  // context-N counts its window in its own tokens, and reports them, so usage and the 400 agree.
  const inputTokens = behaviour.kind === 'context' ? contextTokens(body) : inputWords(body);
  if (behaviour.kind === 'tool') {
    const name = firstToolName(body);
    if (!name) return { ok: false, message: "model 'tool' calls the first tool in the request, but the request has no tools", param: 'tools' };
    const tool = toolCall(api, name, lastUserText(body));
    return {
      ok: true,
      answer: { reasoning: noTokens, text: noTokens, tool, finish: 'tool_calls', inputTokens, outputTokens: tool.fragments.length },
    };
  }
  if (behaviour.kind === 'agent') return buildAgentAnswer(api, body, inputTokens, behaviour.steps);
  if (behaviour.kind === 'json') return buildJsonAnswer(api, behaviour.bad, body, inputTokens);
  let { reasoning, text } = content(behaviour, body, limit);
  let finish: Finish = 'stop';
  // slow-N sizes itself by max_tokens; big-M is sized by its name alone, since the Messages
  // interface always carries a max_tokens (gatechat's default 4096 would cut big-M at 64 MiB).
  if (behaviour.kind !== 'slow' && behaviour.kind !== 'big' && limit !== null && reasoning.count + text.count > limit) {
    // Reasoning counts against the limit first, as it does for real reasoning models.
    finish = 'length';
    reasoning = takeTokens(reasoning, limit);
    text = takeTokens(text, limit - reasoning.count);
  }
  return {
    ok: true,
    answer: { reasoning, text, tool: null, finish, inputTokens, outputTokens: reasoning.count + text.count },
  };
}

/**
 * `json` / `json-bad`: a document for the request's schema — pretty-printed text on Chat
 * Completions (several tokens, so streaming is exercised), the forced tool's input on Messages.
 */
function buildJsonAnswer(api: Api, bad: boolean, body: Record<string, unknown>, inputTokens: number): AnswerResult {
  const requested = requestedSchema(api, body);
  if (!requested) {
    const where = api === 'chat' ? 'response_format {"type":"json_schema"}' : 'a tool forced by tool_choice {"type":"tool"}';
    return { ok: false, message: `model '${bad ? 'json-bad' : 'json'}' answers the request's schema, but the request has none (send ${where})`, param: api === 'chat' ? 'response_format' : 'tool_choice' };
  }
  const document = bad ? brokenSample(requested.schema) : sampleFor(requested.schema, 'answer');
  const json = JSON.stringify(document, null, 2);
  const pieces = tokenize(json);
  if (requested.tool !== null) {
    const fragments = pieces.length >= 2 ? pieces : [json.slice(0, 1), json.slice(1)];
    const tool: ToolCallAnswer = { id: randomId('toolu_'), name: requested.tool, arguments: json, fragments };
    return { ok: true, answer: { reasoning: noTokens, text: noTokens, tool, finish: 'tool_calls', inputTokens, outputTokens: fragments.length } };
  }
  return { ok: true, answer: { reasoning: noTokens, text: tokensOf(pieces), tool: null, finish: 'stop', inputTokens, outputTokens: pieces.length } };
}

/** `agent` (SPEC §15): calls a tool when a user turn is last, reports the results when they are last. */
function buildAgentAnswer(api: Api, body: Record<string, unknown>, inputTokens: number, steps: number): AnswerResult {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const results = trailingToolResults(api, messages);
  // agent-N (a benchmark's loop): calls again, the same way, until N results came back.
  const call = results === null || toolResultCount(api, messages) < steps ? agentCall(firstUserText(api, messages), toolNames(body)) : null;
  if (call === null) {
    const text = tokensOf(tokenize(results === null ? lastUserText(body) : `results: ${results.join('\n')}`));
    return { ok: true, answer: { reasoning: noTokens, text, tool: null, finish: 'stop', inputTokens, outputTokens: text.count } };
  }
  const fragments = call.args.length >= 2 ? [call.args.slice(0, 1), call.args.slice(1)] : [call.args, ''];
  const tool: ToolCallAnswer = { id: randomId(api === 'chat' ? 'call_' : 'toolu_'), name: call.name, arguments: call.args, fragments };
  // On Messages it behaves like a thinking model: the tool-calling answer carries a signed thinking block.
  const reasoning = api === 'messages' ? tokensOf(tokenize(AGENT_THINKING)) : noTokens;
  return { ok: true, answer: { reasoning, text: noTokens, tool, finish: 'tool_calls', inputTokens, outputTokens: fragments.length + reasoning.count } };
}
