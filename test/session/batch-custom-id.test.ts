// custom_id edges (SPEC §19): the hash that checks a read-back id, the 64-character limit, and the
// custom_ids gatechat did not make — which must read as nothing, never as some other line; and the
// batch split exactly at the byte limit.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { customIdFor, idHash, parseCustomId } from '../../src/session/batch-custom-id.js';
import { ENVELOPE_BYTES, planBatches } from '../../src/session/batch-remote-plan.js';

const sha16 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

describe('custom_id', () => {
  it('the id hash is of the id as a resume key spells it: #7 for the number, "7 for the text', () => {
    expect(idHash(7)).toBe(sha16('#7'));
    expect(idHash('7')).toBe(sha16('"7'));
    expect(idHash('has space')).toBe(sha16('"has space'));
  });

  it('a string id is carried as long as the custom_id stays within 64 characters', () => {
    const fits = 'a'.repeat(64 - 'l7-s'.length);
    expect(customIdFor({ line: 7, id: fits, prompt: 'p' })).toBe(`l7-s${fits}`);
    expect(customIdFor({ line: 7, id: `${fits}a`, prompt: 'p' })).toBe(`l7-x${idHash(`${fits}a`)}`);
  });

  it('reads the line number whole', () => {
    expect(parseCustomId('l12')).toEqual({ line: 12, id: 12, fromInput: false });
    expect(parseCustomId('l1234567890123456')).toEqual({ line: 1234567890123456, id: 1234567890123456, fromInput: false });
    expect(parseCustomId('l12-n-5')).toEqual({ line: 12, id: -5, fromInput: false });
  });

  it('anything gatechat did not make is null', () => {
    const foreign: unknown[] = [
      ['l7'], // not text, though it prints as a custom_id
      'xl7',
      'batch-l7',
      'l9999999999999999', // a line number past the safe integers
      'l3-xzz0123456789abcdef',
      'l3-x0123456789abcdef00',
      'l7-n 5',
      'l7-n0x10',
      'l7-n5 ',
      'l7-n1e3',
      'l7-n99999999999999999999',
    ];
    for (const customId of foreign) expect(parseCustomId(customId), JSON.stringify(customId)).toBeNull();
    expect(parseCustomId('l3-x0123456789abcdef')).toEqual({ line: 3, idHash: '0123456789abcdef', fromInput: true });
  });
});

describe('planBatches at the byte limit', () => {
  async function* sizes(list: Array<[number, number]>) {
    for (const [line, bytes] of list) yield { line, bytes };
  }

  it('a batch filled to exactly the limit (less the envelope) takes the line; one byte more starts the next', async () => {
    // Each request line takes its bytes plus a separator: 10 + 1.
    expect(await planBatches(sizes([[1, 10], [2, 10]]), { requests: 10, bytes: ENVELOPE_BYTES + 22 })).toEqual([{ first_line: 1, last_line: 2, requests: 2, bytes: 22 }]);
    expect(await planBatches(sizes([[1, 10], [2, 10]]), { requests: 10, bytes: ENVELOPE_BYTES + 21 })).toEqual([
      { first_line: 1, last_line: 1, requests: 1, bytes: 11 },
      { first_line: 2, last_line: 2, requests: 1, bytes: 11 },
    ]);
  });
});
