// The history index's entries (SPEC §17 "Scale"), file by file: conversation files written here line
// by line, so each case holds exactly the bytes it is about; listings through ConversationStore (what
// `history list` runs), and HistoryIndex itself where one instance must live across a change.
import { appendFileSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { HistoryIndex } from '../../src/session/history-index.js';
import { startTimeOf } from '../../src/storage/process-state.js';

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

describe('an entry kept up to date', () => {
  it('a grown file keeps the search text of what was read before: model, system prompt and earlier prompts', () => {
    write(A, [meta(A, { system: 'You are a Pirate' }), user('first prompt about kites', 1)]);
    list();
    append(A, [user('second prompt about owls', 2)]);
    expect(ids('echo')).toEqual([A]);
    expect(ids('pirate')).toEqual([A]);
    expect(ids('owls')).toEqual([A]);
    expect(indexLines().search).toEqual(['echo\nyou are a pirate\nfirst prompt about kites\nsecond prompt about owls']);
  });

  it('a file changed in inode only, size only or mtime only is read again', () => {
    write(A, [meta(A), user('about kites', 1)]);
    pin(A);
    list();
    // Same size and mtime, another inode (replaced by rename): read again.
    writeFileSync(`${fileOf(A)}.new`, readFileSync(fileOf(A), 'utf8').replace('kites', 'birds'));
    renameSync(`${fileOf(A)}.new`, fileOf(A));
    pin(A);
    expect(list().map((c) => c.title)).toEqual(['about birds']);
    // Same inode and mtime, longer: read again.
    append(A, [user('more', 2)]);
    pin(A);
    expect(list()[0]!.turns).toBe(2);
    // Same inode and size, another mtime: read (the bytes after the head are trusted, the head is not).
    writeFileSync(fileOf(A), readFileSync(fileOf(A), 'utf8').replace('birds', 'moths'));
    utimesSync(fileOf(A), PINNED + 5, PINNED + 5);
    expect(list().map((c) => c.title)).toEqual(['about moths']);
  });

  it('an unchanged listing leaves the index file as it is; a changed one writes it once', () => {
    write(A, [meta(A), user('about kites', 1)]);
    list();
    // An old mtime on the index: a rewrite (temp file + rename) would show a new one. (Not the inode: a
    // second rewrite can get the first one's inode back.)
    const pinIndex = () => utimesSync(indexFile(), PINNED, PINNED);
    const rewritten = () => statSync(indexFile()).mtimeMs !== PINNED * 1000;
    pinIndex();
    list();
    list('kites');
    expect(rewritten()).toBe(false);
    // One instance saving twice after one change writes once.
    append(A, [user('more', 2)]);
    const index = new HistoryIndex(root);
    index.conversation(A, fileOf(A), lstatSync(fileOf(A)));
    index.save(new Set([A]));
    expect(rewritten()).toBe(true);
    pinIndex();
    index.save(new Set([A]));
    expect(rewritten()).toBe(false);
  });

  it('a file replaced by one with the same first 4 KiB is read whole, not folded from where the index stopped', () => {
    const long = 'x'.repeat(5000);
    write(A, [meta(A), user(`first ${long}`, 1), user('second about owls', 2)]);
    list();
    const replaced = readFileSync(fileOf(A), 'utf8').replace('owls', 'bats');
    writeFileSync(`${fileOf(A)}.new`, `${replaced}${user('third', 3)}\n`);
    renameSync(`${fileOf(A)}.new`, fileOf(A));
    expect(ids('bats')).toEqual([A]);
    expect(ids('owls')).toEqual([]);
  });

  it('a file that shrank is read whole', () => {
    const long = 'x'.repeat(5000);
    write(A, [meta(A), user(`first ${long}`, 1), user('second', 2), user('third', 3)]);
    expect(list()[0]!.turns).toBe(3);
    const text = readFileSync(fileOf(A), 'utf8');
    truncateSync(fileOf(A), text.lastIndexOf(user('third', 3)));
    expect(list()[0]).toMatchObject({ turns: 2, updated: ts(2) });
  });

  it('a file of the same size whose later bytes changed is trusted past its head (appends only), until its head changes', () => {
    const long = 'x'.repeat(5000);
    write(A, [meta(A), user(`first ${long}`, 1), user('second about owls', 2)]);
    list();
    rewriteBehindTheIndex(A, 'owls', 'bats');
    utimesSync(fileOf(A), PINNED + 5, PINNED + 5);
    expect(ids('owls')).toEqual([A]);
    expect(ids('bats')).toEqual([]);
  });

  it('after a whole read of an edited file its head is hashed again: the next append is folded in alone', () => {
    const long = 'x'.repeat(5000);
    write(A, [meta(A), user(`first ${long}`, 1), user('second about owls', 2)]);
    list();
    // Edited at its start: read whole.
    writeFileSync(fileOf(A), readFileSync(fileOf(A), 'utf8').replace('first', 'FIRST'));
    expect(list()[0]!.title).toBe(`FIRST ${'x'.repeat(53)}…`);
    // Then a later line changed behind the index and a turn appended: only the new turn is read.
    rewriteBehindTheIndex(A, 'owls', 'bats');
    append(A, [user('third about newts', 3)]);
    expect(ids('newts')).toEqual([A]);
    expect(ids('owls')).toEqual([A]);
    expect(ids('bats')).toEqual([]);
  });

  it('a small file appended to twice has its head hashed again each time (it grows inside the first 4 KiB)', () => {
    write(A, [meta(A), user('first about owls', 1)]);
    list();
    append(A, [user('second', 2)]);
    list();
    // Now a change behind the index, then an append: the head (all of the file) still matches, so only the append is read.
    rewriteBehindTheIndex(A, 'second', 'SECOND');
    append(A, [user('third', 3)]);
    expect(ids('second')).toEqual([A]);
    expect(list()[0]!.turns).toBe(3);
  });

  it('problems found before an append are still named after it', () => {
    write(A, [meta(A), user('first', 1), '{"type":"user","turn":"t9","ts":"x","content":5}', user('second', 2)]);
    list();
    expect(warnings).toEqual([`warning: conversation ${A}: line 3: "content" is not a string (skipped); the rest is used`]);
    warnings = [];
    append(A, [user('third', 3)]);
    expect(list()[0]!.turns).toBe(3);
    expect(warnings).toEqual([`warning: conversation ${A}: line 3: "content" is not a string (skipped); the rest is used`]);
  });

  it('names at most ten problems of a file', () => {
    const bad = Array.from({ length: 12 }, (_, i) => `{"type":"user","turn":"b${i}","ts":"x","content":${i}}`);
    write(A, [meta(A), user('first', 1), ...bad]);
    list();
    const named = warnings[0]!.split('; ');
    expect(named.slice(0, -1)).toEqual(Array.from({ length: 10 }, (_, i) => `${i === 0 ? `warning: conversation ${A}: ` : ''}line ${i + 3}: "content" is not a string (skipped)`));
  });

  it('counts lines from an empty first line on, so a problem after an append has its own line number', () => {
    writeFileSync(fileOf(A), `\n${meta(A)}\n${user('first', 1)}\n`);
    list();
    append(A, ['{"type":"user","turn":"t9","ts":"x","content":5}']);
    list();
    expect(warnings).toEqual([`warning: conversation ${A}: line 4: "content" is not a string (skipped); the rest is used`]);
  });
});

describe('what an entry says', () => {
  it('a file without a header is dated, titled and searched by its records; later appends do not move its date', () => {
    write(A, [user('  ', 1), user('hello there', 2)]);
    expect(list()).toEqual([{ cid: A, created: ts(1), updated: ts(2), model: '', api: 'chat', turns: 2, title: '', }]);
    append(A, [user('more', 3)]);
    expect(list()).toEqual([{ cid: A, created: ts(1), updated: ts(3), model: '', api: 'chat', turns: 3, title: '' }]);
    expect(warnings).toEqual([]);
  });

  it('a header dates it, not its first record; a header alone is updated when created', () => {
    write(A, [meta(A, { api: 'messages' }), user('hi', 5)]);
    write(B, [meta(B, { created: ts(9) })]);
    expect(list()).toEqual([
      { cid: B, created: ts(9), updated: ts(9), model: 'echo', api: 'chat', turns: 0, title: '' },
      { cid: A, created: CREATED, updated: ts(5), model: 'echo', api: 'messages', turns: 1, title: 'hi' },
    ]);
  });

  it('a second header further down (files joined by hand) changes nothing, read whole or by appends', () => {
    write(A, [meta(A), user('first', 1)]);
    list();
    append(A, [meta(A, { model: 'other', created: ts(30), system: 'zebra' }), user('second', 2)]);
    const expected = [{ cid: A, created: CREATED, updated: ts(2), model: 'echo', api: 'chat', turns: 2, title: 'first' }];
    expect(list()).toEqual(expected);
    expect(ids('zebra')).toEqual([]);
    rmSync(indexFile());
    expect(list()).toEqual(expected);
    expect(ids('zebra')).toEqual([]);
  });

  it('a file of torn lines only is skipped with its problem named; one with a record is listed', () => {
    write(A, ['{"type":"us', 'nonsense']);
    write(B, [user('hello', 1)]);
    expect(list().map((c) => c.cid)).toEqual([B]);
    expect(warnings).toEqual([`warning: conversation ${A}: lines 1, 2 are not a whole record; skipped`]);
  });

  it('trailing blanks without a newline are no torn line', () => {
    write(A, [meta(A), user('first', 1)], '\n  \t');
    expect(list()[0]!.turns).toBe(1);
    expect(warnings).toEqual([]);
  });

  it('a last line that parses but is no record is named by its own problem; one of a later version by its number', () => {
    write(A, [meta(A), user('first', 1), '{"type":"user","turn":"t2","ts":"x","content":5}'], '');
    write(B, [meta(B), user('first', 1), '{"type":"from-the-future"}'], '');
    expect(list()).toHaveLength(2);
    expect(warnings.sort()).toEqual([
      `warning: conversation ${A}: line 3: "content" is not a string (skipped); the rest is used`,
      `warning: conversation ${B}: line 3 is not a whole record; the rest is used`,
    ]);
  });

  it('the search text is the model, the system prompt and each prompt, lower case, one a line, within the limit', () => {
    // 1 + 6 × 301 + 192 = 1999 characters: one short of the limit, so nothing more fits, not even a newline.
    const prompts = [...Array.from({ length: 6 }, (_, i) => `${String(i)}${'P'.repeat(299)}`), 'q'.repeat(191), 'late'];
    write(A, [meta(A, { model: 'M' }), ...prompts.map((p, i) => user(p, i + 1))]);
    list();
    const expected = ['m', ...prompts.slice(0, 6).map((p) => p.toLowerCase()), 'q'.repeat(191)].join('\n');
    expect(indexLines().search).toEqual([expected]);
    expect(expected.length).toBe(1999);
  });

  it('a conversation larger than one read chunk (1 MiB) is read whole, a line across the chunk boundary too', () => {
    const big = 'b'.repeat(1_200_000);
    write(A, [meta(A), user(`first ${big}`, 1), user('after the big one', 2)]);
    expect(list()[0]).toMatchObject({ turns: 2, updated: ts(2) });
    expect(ids('after the big')).toEqual([A]);
    expect(warnings).toEqual([]);
  });

  it('does not keep file descriptors open', () => {
    for (const cid of [A, B, C]) write(cid, [meta(cid), user('hello', 1)]);
    const open = () => readdirSync('/proc/self/fd').length;
    list();
    const before = open();
    for (const cid of [A, B, C]) append(cid, [user('more', 2)]);
    list('hello');
    list('nothing');
    expect(open()).toBe(before);
  });
});

describe('the index file', () => {
  /** A and B listed, their index written; A's row is then [cid, ino, size, mtimeMs, read, lines, head, header, readable, created, last, model, api, turns, title, problems, tail]. */
  function twoListed(): void {
    write(A, [meta(A), user('about kites', 1)]);
    write(B, [meta(B), user('about owls', 1)]);
    list();
  }
  const onlyA = (change: (row: unknown[]) => unknown[]) => (row: unknown[]) => (row[0] === A ? change([...row]) : row);
  const set = (at: number, value: unknown) => onlyA((row) => Object.assign(row, { [at]: value }));
  const titled = (title: string, change: (row: unknown[]) => unknown[] = (row) => row) => onlyA((row) => change(Object.assign(row, { 14: title })));

  it('is trusted while a file stat matches: its rows give the listing', () => {
    twoListed();
    rewriteRows(titled('FROM THE INDEX'));
    expect(list().find((c) => c.cid === A)!.title).toBe('FROM THE INDEX');
    // Rows of either api, with problems and a torn last line, are entries too.
    rewriteRows(titled('MESSAGES', (row) => Object.assign(row, { 12: 'messages', 15: ['an old problem'], 16: 'a torn tail' })));
    expect(list().find((c) => c.cid === A)).toMatchObject({ title: 'MESSAGES', api: 'messages' });
    expect(warnings).toEqual([`warning: conversation ${A}: an old problem; a torn tail; the rest is used`]);
  });

  it('a row of the wrong shape is read again from its file', () => {
    twoListed();
    const wrong: Array<[string, (row: unknown[]) => unknown[]]> = [
      ['16 fields', (row) => row.slice(0, 16)],
      ['18 fields', (row) => [...row, null]],
      ['turns a string', (row) => Object.assign(row, { 13: '1' })],
      ['read a string', (row) => Object.assign(row, { 4: '1' })],
      ['model a number', (row) => Object.assign(row, { 11: 5 })],
      ['created a number', (row) => Object.assign(row, { 9: 5 })],
      ['api unknown', (row) => Object.assign(row, { 12: 'other' })],
      ['api empty', (row) => Object.assign(row, { 12: '' })],
      ['header not a boolean', (row) => Object.assign(row, { 7: 'yes' })],
      ['readable not a boolean', (row) => Object.assign(row, { 8: 1 })],
      ['problems not a list', (row) => Object.assign(row, { 15: 'x' })],
      ['problems not strings', (row) => Object.assign(row, { 15: ['x', 1] })],
      ['tail a number', (row) => Object.assign(row, { 16: 5 })],
    ];
    for (const [what, change] of wrong) {
      list();
      rewriteRows(titled('FROM THE INDEX', change));
      warnings = [];
      expect(list(), what).toEqual([
        expect.objectContaining({ cid: B, title: 'about owls' }),
        expect.objectContaining({ cid: A, title: 'about kites', turns: 1, model: 'echo', api: 'chat', created: CREATED }),
      ]);
      expect(warnings, what).toEqual([]);
      // …and written back right.
      expect(indexLines().rows.find((row) => row[0] === A)![14], what).toBe('about kites');
    }
  });

  it('a wrong row of a conversation gone since leaves the index at the next listing', () => {
    twoListed();
    rewriteRows(set(13, 'x'));
    rmSync(fileOf(A));
    expect(ids()).toEqual([B]);
    expect(indexLines().rows.map((row) => row[0])).toEqual([B]);
  });

  it('history rm of another conversation drops a wrong row as well, without failing', () => {
    twoListed();
    rewriteRows(set(13, 'x'));
    new ConversationStore(root).remove(B);
    expect(indexLines().rows.map((row) => row[0])).toEqual([]);
    expect(list().map((c) => c.title)).toEqual(['about kites']);
  });

  it('a foreign version, a wrong count or an index without its search texts is rebuilt or read again', () => {
    twoListed();
    const good = indexLines();
    // Another version: rebuilt, even though its rows would read.
    writeIndex({ ...good.header, v: 99 }, good.rows.map(titled('FROM THE INDEX')), good.search);
    expect(list().map((c) => c.title).sort()).toEqual(['about kites', 'about owls']);
    expect(indexLines().header.v).toBe(2);
    // A count that is not the rows': rebuilt.
    rewriteRows(titled('FROM THE INDEX'));
    writeFileSync(indexFile(), readFileSync(indexFile(), 'utf8').replace('"count":2', '"count":3'));
    expect(list().map((c) => c.title).sort()).toEqual(['about kites', 'about owls']);
    expect(indexLines().header.count).toBe(2);
    // Rows but no search line: the rows are used; searching reads the files again.
    rewriteRows(titled('FROM THE INDEX'));
    writeFileSync(indexFile(), readFileSync(indexFile(), 'utf8').split('\n').slice(0, 2).join('\n') + '\n');
    expect(list().map((c) => c.title).sort()).toEqual(['FROM THE INDEX', 'about owls']);
    expect(ids('echo')).toEqual([A, B]);
    expect(indexLines().search.sort()).toEqual(['echo\nabout kites', 'echo\nabout owls']);
  });

  it('a header claiming more bytes than memory holds is no index', () => {
    twoListed();
    writeFileSync(indexFile(), readFileSync(indexFile(), 'utf8').replace(/"bytes":\d+/, '"bytes":1099511627776'));
    expect(list().map((c) => c.title).sort()).toEqual(['about kites', 'about owls']);
    expect(indexLines().header.count).toBe(2);
  });

  it('search texts of the wrong kind or count are read again from the files', () => {
    twoListed();
    const good = indexLines();
    for (const search of [[1, 2], ['only one'], 'not a list', { a: 1 }]) {
      writeIndex(good.header, good.rows, search);
      expect(ids('echo'), JSON.stringify(search)).toEqual([A, B]);
      expect(indexLines().search.sort(), JSON.stringify(search)).toEqual(['echo\nabout kites', 'echo\nabout owls']);
    }
    // Lost texts found while writing for another reason (a new conversation) are read again at the next listing.
    writeIndex(good.header, good.rows, [1, 2]);
    write(C, [meta(C), user('new', 1)]);
    expect(ids()).toEqual([A, B, C]);
    expect(ids('echo')).toEqual([A, B, C]);
  });

  it('a listing searching after another listing replaced the index does not take that file\'s texts for its own', () => {
    twoListed();
    const index = new HistoryIndex(root);
    // The other listing writes an index of the same bytes but other texts (of the same length), by rename.
    const text = readFileSync(indexFile(), 'utf8');
    writeFileSync(`${indexFile()}.new`, text.replaceAll('echo\\n', 'xxxx\\n'));
    renameSync(`${indexFile()}.new`, indexFile());
    const found = index.conversation(A, fileOf(A), lstatSync(fileOf(A)));
    expect(found.mentions('echo')).toBe(true);
    expect(found.mentions('xxxx')).toBe(false);
  });

  it('a listing searching after the index file was removed reads the texts from the files', () => {
    twoListed();
    const index = new HistoryIndex(root);
    rmSync(indexFile());
    expect(index.conversation(A, fileOf(A), lstatSync(fileOf(A))).mentions('echo')).toBe(true);
  });

  it('an empty data dir with a damaged index gets a good empty one', () => {
    writeFileSync(indexFile(), 'garbage');
    expect(list()).toEqual([]);
    expect(indexLines().header).toMatchObject({ v: 2, count: 0 });
  });

  it('an index in the place of a directory is no index and is not written, and the listing goes on', () => {
    twoListed();
    rmSync(indexFile());
    mkdirSync(indexFile());
    expect(list().map((c) => c.title).sort()).toEqual(['about kites', 'about owls']);
    expect(ids('echo')).toEqual([A, B]);
    expect(readdirSync(root).sort()).toEqual(['conversations', 'history-index.json']);
  });

  it('is not written while another listing holds its lock (no waiting), and written once it is free', () => {
    twoListed();
    const before = readFileSync(indexFile(), 'utf8');
    write(C, [meta(C), user('new', 1)]);
    // Our own pid: a live holder.
    writeFileSync(`${indexFile()}.lock`, `${JSON.stringify({ pid: process.pid, host: hostname(), started: startTimeOf(process.pid), nonce: 'x' })}\n`);
    expect(ids()).toEqual([A, B, C]);
    expect(readFileSync(indexFile(), 'utf8')).toBe(before);
    rmSync(`${indexFile()}.lock`);
    expect(ids()).toEqual([A, B, C]);
    expect(indexLines().rows.map((row) => row[0]).sort()).toEqual([A, B, C]);
  });

  it('history rm: the entries of removed conversations leave at once; nothing indexed about them, nothing written', () => {
    write(A, [meta(A), user('about kites', 1)]);
    // No index yet: removing writes none.
    new ConversationStore(root).remove(A);
    expect(readdirSync(root)).toEqual(['conversations']);
    write(A, [meta(A), user('about kites', 1)]);
    write(B, [meta(B), user('about owls', 1)]);
    list();
    // One of the removed indexed, one not: the indexed one leaves.
    const index = new HistoryIndex(root);
    index.forget([C, A], new Set([B]));
    expect(indexLines().rows.map((row) => row[0])).toEqual([B]);
    expect(indexLines().search).toEqual(['echo\nabout owls']);
    // None of them indexed: the file is left as it is (its old mtime stays).
    utimesSync(indexFile(), PINNED, PINNED);
    new HistoryIndex(root).forget([C], new Set([B]));
    expect(statSync(indexFile()).mtimeMs).toBe(PINNED * 1000);
  });
});
