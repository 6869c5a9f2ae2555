import { describe, expect, it } from 'vitest';
import { addEvent, emptyBatch } from '../../src/render/ink/delta-batch.js';

describe('a batch of deltas for the chat UI', () => {
  it('counts every gateway delta an event merged (the live "↓ N tokens" estimate), one for a plain event', () => {
    const batch = emptyBatch();
    addEvent(batch, { type: 'text', delta: 'Lorem ipsum dolor sit amet,', pieces: 5 });
    addEvent(batch, { type: 'reasoning', delta: 'hm', pieces: 2 });
    addEvent(batch, { type: 'text', delta: ' consectetur' });
    expect(batch.deltas).toBe(8);
    expect(batch.text).toBe('Lorem ipsum dolor sit amet, consectetur');
    expect(batch.reasoning).toBe('hm');
  });
});
