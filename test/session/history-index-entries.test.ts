// The history index's entries (SPEC §17 "Scale"), file by file: conversation files written here line
// by line, so each case holds exactly the bytes it is about; listings through ConversationStore (what
// `history list` runs), and HistoryIndex itself where one instance must live across a change.
import { appendFileSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { HistoryIndex } from '../../src/session/history-index.js';

let root: string;
let warnings: string[];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-index-entries-'));
  mkdirSync(join(root, 'conversations'));
  warnings = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const A = '20300101-000000-aaaa';
const B = '20300101-000000-bbbb';
const C = '20300101-000000-cccc';
const CREATED = '2030-01-01T00:00:00.000Z';
const ts = (n: number) => `2030-01-01T00:00:${String(n).padStart(2, '0')}.000Z`;

const fileOf = (cid: string) => join(root, 'conversations', `${cid}.jsonl`);
const indexFile = () => join(root, 'history-index.json');

const meta = (cid: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'meta', v: 1, cid, created: CREATED, model: 'echo', api: 'chat', system: null, ...extra });
const user = (content: string, n = 1) => JSON.stringify({ type: 'user', turn: `t${n}`, ts: ts(n), content });

function write(cid: string, lines: string[], end = '\n'): void {
  writeFileSync(fileOf(cid), `${lines.join('\n')}${end}`);
}
function append(cid: string, lines: string[], end = '\n'): void {
  appendFileSync(fileOf(cid), `${lines.join('\n')}${end}`);
}

/** A new store over the directory: what each `gatechat history list` run is. */
function list(text?: string) {
  return new ConversationStore(root, { warn: (line) => warnings.push(line) }).list(text);
}
const ids = (text?: string) => list(text).map((c) => c.cid).sort();

/** The index file's three lines, parsed. */
function indexLines(): { header: { v: number; count: number; bytes: number }; rows: unknown[][]; search: string[] } {
  const [header, rows, search] = readFileSync(indexFile(), 'utf8').split('\n').map((line) => (line ? JSON.parse(line) : null));
  return { header, rows, search };
}
function writeIndex(header: unknown, rows: unknown, search: unknown): void {
  writeFileSync(indexFile(), [header, rows, search].map((part) => `${JSON.stringify(part)}\n`).join(''));
}
/** The index with each row passed through `change`, its header's byte count kept true. */
function rewriteRows(change: (row: unknown[]) => unknown, search?: unknown): void {
  const { header, rows, search: texts } = indexLines();
  const changed = rows.map(change);
  writeIndex({ ...header, bytes: Buffer.byteLength(`${JSON.stringify(changed)}\n`) }, changed, search ?? texts);
}

/** A whole-second mtime, which utimes can set again exactly. */
const PINNED = 1_900_000_000;
const pin = (cid: string) => utimesSync(fileOf(cid), PINNED, PINNED);

/** Replaces `from` with `to` (same length) in place: same inode, same size; the mtime pinned again. */
function rewriteBehindTheIndex(cid: string, from: string, to: string): void {
  expect(to.length).toBe(from.length);
  const text = readFileSync(fileOf(cid), 'utf8');
  expect(text).toContain(from);
  writeFileSync(fileOf(cid), text.replace(from, to));
  pin(cid);
}

describe('search texts', () => {
  it('a conversation whose search text the index lost, and which grew since, is searched by all its prompts', () => {
    write(A, [meta(A), user('first prompt about kites', 1)]);
    write(B, [meta(B), user('other', 1)]);
    list();
    writeIndex(indexLines().header, indexLines().rows, ['lost']);
    append(A, [user('second prompt about owls', 2)]);
    expect(ids('kites')).toEqual([A]);
    expect(ids('owls')).toEqual([A]);
    expect(ids('echo')).toEqual([A, B]);
  });
});
