import { describe, expect, it } from 'vitest';
import { requestedWaitMs, retryDelayMs, shouldRetry } from '../../src/transport/retry.js';

describe('shouldRetry', () => {
  it.each([408, 409, 429, 500, 502, 503, 504, 529])('retries HTTP %i', (status) => {
    expect(shouldRetry({ status })).toBe(true);
  });
  it.each([400, 401, 403, 404, 413, 422])('does not retry HTTP %i', (status) => {
    expect(shouldRetry({ status })).toBe(false);
  });
  it('retries connect errors and header timeouts', () => {
    expect(shouldRetry({ networkPhase: 'connect' })).toBe(true);
    expect(shouldRetry({ networkPhase: 'headers' })).toBe(true);
  });
  it('lets x-should-retry override in both directions', () => {
    expect(shouldRetry({ status: 503, headers: { 'x-should-retry': 'false' } })).toBe(false);
    expect(shouldRetry({ status: 400, headers: { 'x-should-retry': 'true' } })).toBe(true);
    expect(shouldRetry({ status: 503, headers: { 'X-Should-Retry': 'FALSE' } })).toBe(false);
  });
  it('nothing to go on: no retry', () => {
    expect(shouldRetry({})).toBe(false);
  });
});

describe('retryDelayMs', () => {
  const noJitter = () => 0;
  const maxJitter = () => 1;

  it('backs off exponentially from 0.5 s to an 8 s cap', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((a) => retryDelayMs(a, undefined, noJitter));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000].map((delayMs) => ({ delayMs })));
  });
  it('jitters down by at most a quarter', () => {
    expect(retryDelayMs(1, undefined, maxJitter)).toEqual({ delayMs: 375 });
    expect(retryDelayMs(5, {}, maxJitter)).toEqual({ delayMs: 6000 });
  });
  it('prefers retry-after-ms over Retry-After', () => {
    expect(retryDelayMs(1, { 'retry-after-ms': '1500', 'retry-after': '30' }, noJitter)).toEqual({ delayMs: 1500 });
  });
  it('honours Retry-After in seconds and as an HTTP date', () => {
    expect(retryDelayMs(1, { 'retry-after': '2' }, noJitter)).toEqual({ delayMs: 2000 });
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryDelayMs(1, { 'retry-after': 'Wed, 01 Jan 2025 00:00:10 GMT' }, noJitter, now)).toEqual({ delayMs: 10_000 });
    expect(retryDelayMs(1, { 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }, noJitter, now)).toEqual({ delayMs: 0 });
  });
  it('refuses waits over 60 s with a reason', () => {
    const result = retryDelayMs(1, { 'retry-after': '120' }, noJitter);
    expect(result).toEqual({ refuse: 'the gateway asks to wait 120 s before retrying, more than the 60 s gatechat waits' });
    // Whole seconds, rounded up: 90.5 s is never said as 90.
    expect(retryDelayMs(1, { 'retry-after-ms': '90500' }, noJitter)).toEqual({ refuse: expect.stringMatching(/^the gateway asks to wait 91 s /) });
    expect(retryDelayMs(1, { 'retry-after-ms': '60001' }, noJitter)).toHaveProperty('refuse');
    expect(retryDelayMs(1, { 'retry-after': '60' }, noJitter)).toEqual({ delayMs: 60_000 });
  });
  it('ignores unusable values and falls back to backoff', () => {
    expect(retryDelayMs(2, { 'retry-after': 'soon', 'retry-after-ms': 'x' }, noJitter)).toEqual({ delayMs: 1000 });
  });
});

describe('requestedWaitMs', () => {
  it('reads retry-after-ms, then Retry-After in seconds or as a date, whatever the header case', () => {
    expect(requestedWaitMs(undefined)).toBeNull();
    expect(requestedWaitMs({ 'retry-after-ms': '250' })).toBe(250);
    expect(requestedWaitMs({ 'Retry-After-Ms': '0' })).toBe(0);
    expect(requestedWaitMs({ 'retry-after': ' 2 ' })).toBe(2000);
    expect(requestedWaitMs({ 'Retry-After': '1.5' })).toBe(1500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(requestedWaitMs({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }, now)).toBe(3000);
    expect(requestedWaitMs({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }, now)).toBe(0);
  });

  it('ignores what is no wait: empty, negative, not a number, seconds with junk around them', () => {
    expect(requestedWaitMs({ 'retry-after-ms': ' ', 'retry-after': '1' })).toBe(1000);
    expect(requestedWaitMs({ 'retry-after-ms': '-5', 'retry-after': '1' })).toBe(1000);
    expect(requestedWaitMs({ 'retry-after-ms': 'Infinity', 'retry-after': '1' })).toBe(1000);
    expect(requestedWaitMs({ 'retry-after': '' })).toBeNull();
    expect(requestedWaitMs({ 'retry-after': '   ' })).toBeNull();
    expect(requestedWaitMs({ 'retry-after': 'soon' })).toBeNull();
    expect(requestedWaitMs({ 'retry-after': '5s' })).toBeNull();
    expect(requestedWaitMs({ 'retry-after': '1.x5' })).toBeNull();
    expect(requestedWaitMs({ 'retry-after': '3.y' })).toBeNull();
    expect(requestedWaitMs({ 'retry-after': '2.25' })).toBe(2250);
    expect(requestedWaitMs({ 'retry-after': 'x5' })).toBeNull();
  });

  it('shouldRetry: a header named in any case; no status and no phase is no retry', () => {
    expect(shouldRetry({ status: 400, headers: { 'X-Should-Retry': ' TRUE ' } })).toBe(true);
    expect(shouldRetry({ status: 503, headers: { 'x-should-retry': 'false' } })).toBe(false);
    expect(shouldRetry({ status: 503, headers: { 'x-should-retry': 'maybe' } })).toBe(true);
    expect(shouldRetry({ headers: {} })).toBe(false);
    expect(shouldRetry({ status: 499 })).toBe(false);
  });
});
