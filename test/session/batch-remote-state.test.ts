// `out.jsonl.batches` (SPEC §19): saved whole, read back as it was, gone when removed; a damaged or
// foreign file is one line naming what is wrong (exit 2), never taken for "no batch yet".
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/exit-codes.js';
import { readRemoteState, removeRemoteState, statePathFor, writeRemoteState, type RemoteState } from '../../src/session/batch-remote-state.js';
import { StorageError } from '../../src/storage/storage-error.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatechat-batch-state-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const state = (extra: Partial<RemoteState> = {}): RemoteState => ({
  version: 1,
  api: 'chat',
  base_url: 'http://127.0.0.1:1/v1',
  input: 'in.jsonl',
  output_offset: 120,
  batches: [
    { id: 'batch_1', first_line: 1, last_line: 40, requests: 38, input_file_id: 'file_1', collected: true },
    { id: 'batch_2', first_line: 41, last_line: 50, requests: 10 },
  ],
  ...extra,
});

describe('remote batch state file', () => {
  it('lives beside the output, as <output>.batches', () => {
    expect(statePathFor('/data/out.jsonl')).toBe('/data/out.jsonl.batches');
  });

  it('is written whole (one JSON document and a newline) and read back as it was; removed, it is no state', () => {
    const path = join(dir, 'out.jsonl.batches');
    expect(readRemoteState(path)).toBeNull();
    for (const saved of [state(), state({ api: 'messages', batches: [] })]) {
      writeRemoteState(path, saved);
      expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify(saved, null, 1)}\n`);
      expect(readRemoteState(path)).toEqual(saved);
    }
    removeRemoteState(path);
    expect(readRemoteState(path)).toBeNull();
    expect(() => removeRemoteState(path)).not.toThrow();
  });

  it('a damaged or foreign file is one usage line naming what is wrong, and how to start again', () => {
    const path = join(dir, 'out.jsonl.batches');
    const refused = (content: unknown): string => {
      writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
      try {
        readRemoteState(path);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      throw new Error(`accepted: ${JSON.stringify(content)}`);
    };
    const why = (content: unknown) => {
      const message = refused(content);
      const prefix = `${path}: not a gatechat remote batch state (`;
      expect(message.startsWith(prefix)).toBe(true);
      expect(message.endsWith('); move it away to submit the batch again')).toBe(true);
      return message.slice(prefix.length, -'); move it away to submit the batch again'.length);
    };
    const batch = { id: 'b', first_line: 1, last_line: 2, requests: 2 };
    expect(why('{"version":1,')).toBe('not JSON');
    expect(why('null')).toBe('no "version": 1');
    expect(why({ ...state(), version: 2 })).toBe('no "version": 1');
    expect(why({ ...state(), api: 'responses' })).toBe('"api"');
    expect(why({ ...state(), api: undefined })).toBe('"api"');
    const fields = '"base_url", "input" or "output_offset"';
    expect(why({ ...state(), base_url: 5 })).toBe(fields);
    expect(why({ ...state(), input: null })).toBe(fields);
    expect(why({ ...state(), output_offset: '120' })).toBe(fields);
    expect(why({ ...state(), batches: {} })).toBe('"batches"');
    const badBatch = 'a batch without "id", "first_line", "last_line" or "requests"';
    expect(why({ ...state(), batches: [null] })).toBe(badBatch);
    expect(why({ ...state(), batches: [batch, { ...batch, id: 7 }] })).toBe(badBatch);
    expect(why({ ...state(), batches: [{ ...batch, first_line: 1.5 }] })).toBe(badBatch);
    expect(why({ ...state(), batches: [{ ...batch, last_line: '2' }] })).toBe(badBatch);
    expect(why({ ...state(), batches: [{ ...batch, requests: '2' }] })).toBe(badBatch);
    // Each field alone is enough to pass.
    writeFileSync(path, JSON.stringify({ ...state(), batches: [batch] }));
    expect(readRemoteState(path)).toEqual({ ...state(), batches: [batch] });
  });

  it('a state that cannot be read or saved is a storage error naming the file and the cause', () => {
    const inTheWay = join(dir, 'a-directory.batches');
    mkdirSync(inTheWay);
    expect(() => readRemoteState(inTheWay)).toThrow(StorageError);
    expect(() => readRemoteState(inTheWay)).toThrow(`cannot read the remote batch state ${inTheWay}: it is a directory`);
    const nowhere = join(dir, 'missing', 'out.jsonl.batches');
    expect(() => writeRemoteState(nowhere, state())).toThrow(StorageError);
    expect(() => writeRemoteState(nowhere, state())).toThrow(`cannot save the remote batch ids to ${nowhere}: it or a directory above it does not exist (ENOENT)`);
  });
});
