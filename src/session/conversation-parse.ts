import type { ToolCall } from '../protocol/events.js';
import { tryParseJson } from '../protocol/json.js';
import { isObject, type AssistantRecord, type MetaRecord, type StoredAttachment, type StoredRecord, type SummaryRecord, type UserRecord } from './conversation-records.js';
import type { TurnStatus } from './types.js';

// Reading a conversation file someone may have edited, a crash may have torn, or a disk may have
// damaged: every line that holds a record is used, every field of the wrong type is left out, and
// each thing skipped is named (`problems`), so one bad line or field never costs the rest.

export interface ParsedConversation {
  meta: MetaRecord;
  records: StoredRecord[];
  /** What was skipped or ignored, one short phrase each (`line 4 is not a whole record`). */
  problems: string[];
}

const RECORD_START = '{"type":"';
const STATUSES: readonly TurnStatus[] = ['complete', 'interrupted', 'cancelled', 'error'];

/** `cid` is the file's name: what the conversation is, whatever its header says. */
export function parseConversation(cid: string, text: string): ParsedConversation {
  const { meta, records, problems } = parseRecords(cid, text);
  // Only a crash inside create() leaves no header; the conversation is still readable.
  return { meta: meta ?? headerless(cid, records), records, problems };
}

/** The header a file without one is read with: created at its first record, no model. */
export function headerless(cid: string, records: readonly StoredRecord[]): MetaRecord {
  return { type: 'meta', v: 1, cid, created: records[0]?.ts ?? '', model: '', api: 'chat' };
}

/**
 * The records of whole lines of a file, from any line on (the history index reads only what was
 * appended since it last looked): `firstLine` numbers the lines in `problems`; `meta` is undefined
 * when these lines hold no header.
 */
export function parseRecords(cid: string, text: string, firstLine = 1): { meta: MetaRecord | undefined; records: StoredRecord[]; problems: string[] } {
  let meta: MetaRecord | undefined;
  const records: StoredRecord[] = [];
  const problems: string[] = [];
  const torn: number[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const number = index + firstLine;
    let value = parseLine(line);
    if (value === undefined) {
      // A record glued to the fragment a crashed writer left (appends of other runs go on meanwhile).
      value = recoverGlued(line);
      if (value === undefined) {
        torn.push(number);
        return;
      }
      problems.push(`line ${number} begins with a torn record`);
    }
    if (!isObject(value) || typeof value.type !== 'string') {
      torn.push(number);
      return;
    }
    const where = `line ${number}`;
    switch (value.type) {
      case 'meta':
        if (!meta) meta = checkMeta(value, cid, where, problems);
        return;
      case 'user':
      case 'assistant':
      case 'answer_part': {
        const record = checkRecord(value, where, problems);
        if (record) records.push(record);
        return;
      }
      case 'summary': {
        const summary = checkSummary(value, where, problems);
        if (summary) records.push(summary);
        return;
      }
      case 'title':
        // A title that is not a string is a hand edit: the automatic title stands.
        if (typeof value.title === 'string' && value.title.trim() !== '') records.push({ type: 'title', ts: stringOr(value.ts, ''), title: value.title });
        else problems.push(`${where}: "title" is not a text (ignored)`);
        return;
      default:
      // A record type of a later version: not ours to judge.
    }
  });
  if (torn.length > 0) problems.unshift(`${plural(torn.length, 'line')} ${torn.join(', ')} ${torn.length === 1 ? 'is' : 'are'} not a whole record`);
  return { meta, records, problems };
}

function parseLine(line: string): unknown {
  const parsed = tryParseJson(line);
  return parsed.ok ? parsed.value : undefined;
}

/** Records are written with `type` first, so a whole record after a fragment starts with RECORD_START. */
function recoverGlued(line: string): unknown {
  // Stryker disable next-line EqualityOperator: searched from 1, `at` is never 0 (>= 0 is the same test)
  for (let at = line.indexOf(RECORD_START, 1); at > 0; at = line.indexOf(RECORD_START, at + 1)) {
    const value = parseLine(line.slice(at));
    if (isObject(value)) return value;
  }
  return undefined;
}

function checkMeta(value: Record<string, unknown>, cid: string, where: string, problems: string[]): MetaRecord {
  // The file name is the id: a header naming another conversation must not send later turns to it.
  if (value.cid !== cid) problems.push(`its header names ${typeof value.cid === 'string' ? value.cid : 'no id'}, not ${cid}`);
  const meta: MetaRecord = { ...(value as unknown as MetaRecord), type: 'meta', v: 1, cid, created: stringOr(value.created, '') };
  if (typeof value.model !== 'string') {
    problems.push(`${where}: "model" is not a string`);
    meta.model = '';
  }
  if (value.api !== 'chat' && value.api !== 'messages') {
    problems.push(`${where}: "api" is neither chat nor messages`);
    meta.api = 'chat';
  }
  if (value.system !== undefined && value.system !== null && typeof value.system !== 'string') {
    problems.push(`${where}: "system" is not a string`);
    delete meta.system;
  }
  return meta;
}

function checkRecord(value: Record<string, unknown>, where: string, problems: string[]): StoredRecord | null {
  if (typeof value.content !== 'string') {
    problems.push(`${where}: "content" is not a string (skipped)`);
    return null;
  }
  if (value.turn !== undefined && typeof value.turn !== 'string') {
    problems.push(`${where}: "turn" is not a string (skipped)`);
    return null;
  }
  const base = { ...value, ts: stringOr(value.ts, '') };
  if (value.type === 'answer_part') return base as unknown as StoredRecord;
  if (value.type === 'user') return checkUser(base, where, problems);
  return checkAssistant(base, where, problems);
}

function checkUser(value: Record<string, unknown>, where: string, problems: string[]): UserRecord {
  const record = { ...value } as unknown as UserRecord;
  if (value.attachments !== undefined) {
    const list = value.attachments;
    // A value that is not a list is damaged as a whole: nothing of it is kept, and it is said.
    const good = Array.isArray(list) ? list.filter(isStoredAttachment) : [];
    if (!Array.isArray(list) || good.length !== list.length) problems.push(`${where}: an attachment record is damaged (left out)`);
    if (good.length > 0) record.attachments = good;
    else delete record.attachments;
  }
  if (value.tool_results !== undefined) {
    const list = value.tool_results;
    const good = Array.isArray(list)
      ? list.filter(
          (r): r is NonNullable<UserRecord['tool_results']>[number] =>
            isObject(r) && typeof r.id === 'string' && typeof r.name === 'string' && typeof r.ok === 'boolean' && typeof r.text === 'string',
        )
      : [];
    if (!Array.isArray(list) || good.length !== list.length) problems.push(`${where}: a tool result is damaged (left out)`);
    if (good.length > 0) record.tool_results = good;
    else delete record.tool_results;
  }
  // Stryker disable next-line ConditionalExpression: deleting a field that is absent changes nothing (the `!== undefined` half)
  if (value.retry !== undefined && value.retry !== true) delete record.retry;
  // Stryker disable next-line ConditionalExpression: deleting a field that is absent changes nothing (the `!== undefined` half)
  if (value.supersedes !== undefined && typeof value.supersedes !== 'string') delete record.supersedes;
  // Stryker disable next-line ConditionalExpression: deleting a field that is absent changes nothing (the `!== undefined` half)
  if (value.keep !== undefined && value.keep !== true) delete record.keep;
  if (value.settings !== undefined && !isObject(value.settings)) {
    problems.push(`${where}: "settings" is not an object`);
    delete record.settings;
  }
  return record;
}

function checkAssistant(value: Record<string, unknown>, where: string, problems: string[]): AssistantRecord {
  const wrong: string[] = [];
  const field = <T>(key: string, ok: (v: unknown) => boolean, fallback: T): T => {
    const v = value[key];
    if (v === undefined) return fallback;
    if (ok(v)) return v as T;
    wrong.push(key);
    return fallback;
  };
  const nullableString = (v: unknown) => v === null || typeof v === 'string';
  // Stryker disable next-line ConditionalExpression,LogicalOperator: null falls back to null anyway; Number.isFinite is false for every non-number
  const nullableCount = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v));
  const usage = field<Record<string, unknown>>('usage', isObject, {});
  const timings = field<Record<string, unknown>>('timings', isObject, {});
  const error = field<Record<string, unknown> | undefined>('error', (v) => isObject(v) && typeof v.message === 'string', undefined);
  const calls = field<unknown[]>('tool_calls', Array.isArray, []);
  const toolCalls = calls.filter(isToolCall);
  if (toolCalls.length !== calls.length) wrong.push('tool_calls');
  const record: AssistantRecord = {
    ...(value as unknown as AssistantRecord),
    reasoning: field('reasoning', nullableString, null),
    tool_calls: toolCalls,
    // An answer whose ending cannot be read is not passed off as complete.
    status: field<TurnStatus>('status', (v) => STATUSES.includes(v as TurnStatus), 'interrupted'),
    finish_reason: field('finish_reason', nullableString, null),
    raw_finish_reason: field('raw_finish_reason', nullableString, null),
    usage: {
      input_tokens: nullableCount(usage.input_tokens) ? (usage.input_tokens as number | null) : null,
      output_tokens: nullableCount(usage.output_tokens) ? (usage.output_tokens as number | null) : null,
      ...(usage.cache_read_tokens !== undefined ? { cache_read_tokens: nullableCount(usage.cache_read_tokens) ? (usage.cache_read_tokens as number | null) : null } : {}),
      ...(usage.cache_write_tokens !== undefined ? { cache_write_tokens: nullableCount(usage.cache_write_tokens) ? (usage.cache_write_tokens as number | null) : null } : {}),
    },
    ...(value.cost !== undefined ? { cost: isCost(value.cost) ? value.cost : null } : {}),
    model: field('model', nullableString, null),
    api: field('api', (v) => v === 'chat' || v === 'messages', 'chat'),
    params: field('params', isObject, { stream: true }),
    timings: {
      first_token_ms: nullableCount(timings.first_token_ms) ? (timings.first_token_ms as number | null) : null,
      total_ms: typeof timings.total_ms === 'number' ? timings.total_ms : 0,
    },
  };
  if (error) record.error = { message: error.message as string, exit_code: typeof error.exit_code === 'number' ? error.exit_code : 1 };
  else delete record.error;
  if (value.status === undefined) wrong.push('status');
  if (wrong.length > 0) problems.push(`${where}: ${wrong.map((k) => `"${k}"`).join(', ')} of the wrong type or missing`);
  return record;
}

/** A summary with no text or no count of turns is no summary: skipped, so the turns are sent as they were. */
function checkSummary(value: Record<string, unknown>, where: string, problems: string[]): SummaryRecord | null {
  if (typeof value.content !== 'string' || !Number.isInteger(value.turns) || (value.turns as number) < 0) {
    problems.push(`${where}: a summary without its text or count of turns (skipped)`);
    return null;
  }
  const usage = isObject(value.usage) ? value.usage : {};
  // Stryker disable next-line ConditionalExpression,LogicalOperator: Number.isFinite is false for every non-number
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    type: 'summary',
    ts: stringOr(value.ts, ''),
    content: value.content,
    turns: value.turns as number,
    ...(typeof value.through === 'string' ? { through: value.through } : {}),
    model: typeof value.model === 'string' ? value.model : null,
    api: value.api === 'messages' ? 'messages' : 'chat',
    usage: { input_tokens: count(usage.input_tokens), output_tokens: count(usage.output_tokens) },
    ...(isCost(value.cost) ? { cost: value.cost } : {}),
    ...(typeof value.instructions === 'string' ? { instructions: value.instructions } : {}),
  };
}

function isToolCall(value: unknown): value is ToolCall {
  return isObject(value) && typeof value.id === 'string' && typeof value.name === 'string';
}

function isStoredAttachment(value: unknown): value is StoredAttachment {
  if (!isObject(value) || typeof value.path !== 'string') return false;
  switch (value.kind) {
    case 'text':
      return typeof value.text === 'string';
    case 'image':
      return typeof value.mime === 'string' && typeof value.sha256 === 'string' && typeof value.bytes === 'number';
    case 'pdf':
      return typeof value.sha256 === 'string' && typeof value.bytes === 'number';
    // Stryker disable next-line ConditionalExpression: without it the switch ends and returns undefined, as false to its callers (filters)
    default:
      return false;
  }
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/** A saved `cost` as SPEC §16 writes it; anything else reads back as unknown. */
function isCost(value: unknown): value is { usd: number; source: 'gateway' | 'prices' } {
  // Stryker disable next-line ConditionalExpression: Number.isFinite is false for every non-number
  return isObject(value) && typeof value.usd === 'number' && Number.isFinite(value.usd) && (value.source === 'gateway' || value.source === 'prices');
}
