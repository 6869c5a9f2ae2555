// The history index (SPEC §17 "Scale"): `history list` comes from it and reads only what changed —
// proven by changing a file's bytes behind the index's back (same size, same mtime: the listing still
// shows the indexed facts) and by damage placed where only a whole read would see it.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { savedAnswer } from '../helpers/conversation.js';
import { SEARCH_LIMIT } from '../../src/session/history-index.js';

let root: string;
let warnings: string[];
let store: ConversationStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-index-'));
  warnings = [];
  store = fresh();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A new store over the same directory: what each `gatechat history list` run is. */
function fresh(): ConversationStore {
  return new ConversationStore(root, { warn: (line) => warnings.push(line) });
}

const indexFile = () => join(root, 'history-index.json');
/** The index file's lines: a header, the entries (arrays, the cid first), their search texts. */
function indexed(): { cids: string[]; search: Record<string, string> } {
  const [, rows, search] = readFileSync(indexFile(), 'utf8').split('\n').map((line) => (line ? JSON.parse(line) : null)) as [unknown, string[][], string[]];
  return { cids: rows.map((row) => row[0]!), search: Object.fromEntries(rows.map((row, i) => [row[0], search[i]])) };
}
const fileOf = (cid: string) => join(root, 'conversations', `${cid}.jsonl`);

const answer = (content: string, ts?: string) => savedAnswer(content, ts ? { ts } : {});

function saved(prompt: string, settings: { model?: string; system?: string } = {}): string {
  const cid = store.create({ model: settings.model ?? 'echo', api: 'chat', system: settings.system ?? null });
  store.appendAssistant(cid, { ...answer(`answer to ${prompt}`), turn: store.appendUser(cid, prompt) });
  return cid;
}

/** A whole-second mtime, which utimes can set again exactly. */
const PINNED = 1_900_000_000;
const pinMtime = (cid: string) => utimesSync(fileOf(cid), PINNED, PINNED);

/** Replaces `from` with `to` (same length) inside a pinned file, keeping its size and mtime: invisible to a stat. */
function rewriteBehindTheIndex(cid: string, from: string, to: string): void {
  expect(to.length).toBe(from.length);
  const before = statSync(fileOf(cid));
  writeFileSync(fileOf(cid), readFileSync(fileOf(cid), 'utf8').replace(from, to));
  pinMtime(cid);
  expect(statSync(fileOf(cid))).toMatchObject({ ino: before.ino, size: before.size, mtimeMs: before.mtimeMs });
}

describe('history index', () => {
  it('a listing writes the index; the next one lists from it without reading unchanged files', () => {
    const cid = saved('about kites');
    pinMtime(cid);
    expect(existsSync(indexFile())).toBe(false);
    expect(store.list().map((c) => c.title)).toEqual(['about kites']);
    expect(existsSync(indexFile())).toBe(true);
    expect(statSync(indexFile()).mode & 0o777).toBe(0o600);

    rewriteBehindTheIndex(cid, 'about kites', 'ABOUT BIRDS');
    expect(fresh().list().map((c) => c.title)).toEqual(['about kites']);
    expect(fresh().list('kites').map((c) => c.cid)).toEqual([cid]);
    expect(fresh().list('birds')).toEqual([]);
  });

  it('an appended turn is folded in from where the index stopped: earlier bytes are not read again', () => {
    // A first prompt longer than the hashed head, so damage after it is seen only by a whole read.
    const cid = saved(`first ${'x'.repeat(5000)} end`);
    pinMtime(cid);
    expect(store.list()[0]!.turns).toBe(1);
    // The first answer's line (past the first 4 KiB) made unreadable behind the index's back.
    rewriteBehindTheIndex(cid, '{"type":"assistant"', '#"type":"assistant"');
    store.appendAssistant(cid, { ...answer('second answer', '2030-01-01T00:00:00.000Z'), turn: store.appendUser(cid, 'a second prompt about owls') });
    const [listed] = fresh().list();
    expect(listed).toMatchObject({ cid, turns: 2, updated: '2030-01-01T00:00:00.000Z', title: `first ${'x'.repeat(53)}…` });
    expect(fresh().list('owls').map((c) => c.cid)).toEqual([cid]);
    expect(warnings).toEqual([]);
    // Only a whole read finds the damaged line: the index had not read it again.
    rmSync(indexFile());
    fresh().list();
    expect(warnings).toEqual([`warning: conversation ${cid}: line 3 is not a whole record; the rest is used`]);
  });

  it('a file edited at its start is read again whole', () => {
    const cid = saved('about kites');
    store.list();
    const text = readFileSync(fileOf(cid), 'utf8');
    writeFileSync(fileOf(cid), `${text.replace('about kites', 'about birds and much more')}`);
    expect(fresh().list().map((c) => c.title)).toEqual(['about birds and much more']);
  });

  it('a missing, damaged or foreign index is rebuilt; removed conversations leave it', () => {
    const a = saved('first one');
    const b = saved('second one');
    const expected = store.list();
    const good = readFileSync(indexFile(), 'utf8');
    const [header, rows, search] = good.split('\n');
    const wrongShape = JSON.stringify((JSON.parse(rows!) as unknown[][]).map((row) => (row[0] === a ? [a, 'seven'] : row)));
    for (const damage of ['', '{"v":2,"count":2}\n[[1,2', '[1,2]', good.replace('"v":2', '"v":99'), `${header}\n${wrongShape}\n${search}\n`, `${header}\n${rows}\n[1,2]\n`]) {
      writeFileSync(indexFile(), damage);
      expect(fresh().list(), damage).toEqual(expected);
      expect(fresh().list('one').length, damage).toBe(2);
      expect(indexed().cids.sort()).toEqual([a, b].sort());
    }
    rmSync(indexFile());
    expect(fresh().list()).toEqual(expected);
    store.remove(b);
    // history rm takes its prompts out of the index at once, not at the next listing.
    expect(readFileSync(indexFile(), 'utf8')).not.toContain('second one');
    expect(indexed().cids).toEqual([a]);
    expect(fresh().list().map((c) => c.cid)).toEqual([a]);
    expect(indexed().cids).toEqual([a]);
    // Written by rename: no temp file or lock is left beside it.
    expect(readdirSync(root).sort()).toEqual(['conversations', 'history-index.json']);
  });

  it('TEXT matches the model, system prompt and prompts, any case, through the index', () => {
    const byPrompt = saved('Tell me about Rome');
    const bySystem = saved('hello', { system: 'You are a ROMAN historian' });
    const byModel = saved('hi', { model: 'romeo-large' });
    saved('nothing here');
    const ids = (text: string) => fresh().list(text).map((c) => c.cid).sort();
    expect(ids('rom')).toEqual([byPrompt, bySystem, byModel].sort());
    expect(ids('ROME')).toEqual([byPrompt, byModel].sort());
    // Answers are not searched (SPEC §17: titles and prompts).
    expect(ids('answer to')).toEqual([]);
  });

  it('keeps at most SEARCH_LIMIT characters of searchable text per conversation', () => {
    const cid = saved('p'.repeat(300));
    for (let i = 0; i < 20; i++) store.appendUser(cid, `${'q'.repeat(280)} turn${i}`);
    fresh().list();
    expect(indexed().search[cid]!.length).toBeLessThanOrEqual(SEARCH_LIMIT);
    expect(indexed().search[cid]!.length).toBeGreaterThan(SEARCH_LIMIT - 300);
    expect(fresh().list('turn0').map((c) => c.cid)).toEqual([cid]);
    expect(fresh().list('turn19')).toEqual([]);
  });

  it('a damaged file is named in one warning on every listing, from the index too, and still listed', () => {
    const good = saved('good one');
    const bad = saved('bad one');
    appendFileSync(fileOf(bad), '{"type":"user","content":"half a rec\n');
    for (let run = 0; run < 2; run++) {
      warnings = [];
      const s = fresh();
      expect(s.list().map((c) => c.cid).sort()).toEqual([good, bad].sort());
      expect(warnings).toEqual([`warning: conversation ${bad}: line 4 is not a whole record; the rest is used`]);
    }
  });

  it('a last line without its newline is named, and read once a newline ends it', () => {
    const cid = saved('first');
    appendFileSync(fileOf(cid), '{"type":"user","turn":"t2","ts":"2031-01-01T00:00:00.000Z","content":"sec');
    expect(store.list()[0]!.turns).toBe(1);
    expect(warnings).toEqual([`warning: conversation ${cid}: line 4 is not a whole record; the rest is used`]);
    appendFileSync(fileOf(cid), 'ond"}\n');
    warnings = [];
    expect(fresh().list()[0]).toMatchObject({ turns: 2, updated: '2031-01-01T00:00:00.000Z' });
    expect(warnings).toEqual([]);
    // A whole record without its newline (written by hand) is used at once.
    appendFileSync(fileOf(cid), '{"type":"user","turn":"t3","ts":"2032-01-01T00:00:00.000Z","content":"third"}');
    expect(fresh().list()[0]).toMatchObject({ turns: 3, updated: '2032-01-01T00:00:00.000Z' });
    store.appendUser(cid, 'fourth');
    expect(fresh().list()[0]!.turns).toBe(4);
    expect(warnings).toEqual([]);
  });
});
