// The dev gateway's simulated prompt cache (SPEC §16), in-process with a clock of its own: what it reads
// and writes for requests a --cache conversation sends, on both interfaces, and when entries expire.
import { describe, expect, it } from 'vitest';
import { CACHE_TTL_MS, PromptCache } from '../../src/gateway/prompt-cache.js';

const mark = { cache_control: { type: 'ephemeral' } };
const text = (t: string, marked = false) => ({ type: 'text', text: t, ...(marked ? mark : {}) });
const system = [text('you are terse', true)]; // 3 words

function clocked(): { cache: PromptCache; advance: (ms: number) => void } {
  let now = 1_000_000;
  return { cache: new PromptCache(() => now), advance: (ms) => void (now += ms) };
}

describe('dev gateway prompt cache', () => {
  it('writes a prefix up to a breakpoint, reads it back, and reads the earlier one a moved breakpoint still covers', () => {
    const { cache } = clocked();
    const u1 = (marked: boolean) => ({ role: 'user', content: [text('one two', marked)] });
    const first = { model: 'echo', system, messages: [u1(false)] };
    expect(cache.account(first)).toEqual({ read: 0, write: 3 });
    expect(cache.account(first)).toEqual({ read: 3, write: 0 });
    // -c: the first prompt is now the earlier one, marked.
    const second = { model: 'echo', system, messages: [u1(true), { role: 'assistant', content: 'one two' }, { role: 'user', content: [text('three')] }] };
    expect(cache.account(second)).toEqual({ read: 3, write: 2 });
    // Next turn: the breakpoint moved on to the second prompt; the prefix through the first is read.
    const third = {
      model: 'echo',
      system,
      messages: [u1(false), { role: 'assistant', content: 'one two' }, { role: 'user', content: [text('three', true)] }, { role: 'assistant', content: 'three' }, { role: 'user', content: [text('four')] }],
    };
    expect(cache.account(third)).toEqual({ read: 5, write: 3 });
  });

  it('counts a string content as its text block, and keys on the model and tools', () => {
    const { cache } = clocked();
    const messages = [{ role: 'system', content: [text('be brief now', true)] }, { role: 'user', content: 'hi' }];
    expect(cache.account({ model: 'anthropic/echo', messages })).toEqual({ read: 0, write: 3 });
    expect(cache.account({ model: 'anthropic/echo', messages: [{ role: 'system', content: 'be brief now' }, { role: 'user', content: [text('hi', true)] }] })).toEqual({ read: 3, write: 1 });
    expect(cache.account({ model: 'echo', messages })).toEqual({ read: 0, write: 3 });
    expect(cache.account({ model: 'echo', tools: [{ name: 't' }], messages })).toEqual({ read: 0, write: 3 });
  });

  it('forgets a prefix 5 minutes after its last use; a request without breakpoints is not counted', () => {
    const { cache, advance } = clocked();
    const body = { model: 'echo', system, messages: [{ role: 'user', content: 'hi' }] };
    cache.account(body);
    advance(CACHE_TTL_MS - 1);
    expect(cache.account(body)).toEqual({ read: 3, write: 0 });
    advance(CACHE_TTL_MS - 1);
    expect(cache.account(body)).toEqual({ read: 3, write: 0 });
    advance(CACHE_TTL_MS);
    expect(cache.account(body)).toEqual({ read: 0, write: 3 });
    expect(cache.account({ model: 'echo', system: 'you are terse', messages: [{ role: 'user', content: 'hi' }] })).toBeNull();
  });
});
