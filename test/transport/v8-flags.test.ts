import { describe, expect, it } from 'vitest';
import { tuneV8ForStreaming } from '../../src/transport/v8-flags.js';

describe('tuneV8ForStreaming', () => {
  it('announces itself once per process, however often a request calls it (bin/code-cache.js saves the cache then)', () => {
    let announced = 0;
    const count = (): void => void announced++;
    process.on('gatechat:before-v8-flags', count);
    try {
      tuneV8ForStreaming();
      tuneV8ForStreaming();
      tuneV8ForStreaming();
    } finally {
      process.off('gatechat:before-v8-flags', count);
    }
    expect(announced).toBe(1);
  });
});
