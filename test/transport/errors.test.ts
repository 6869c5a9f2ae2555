// The errors the transport ends a request with: exit codes (SPEC §4), the one line each says, its hint.
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/exit-codes.js';
import {
  exitCodeForStatus,
  httpErrorFrom,
  HttpError,
  NetworkError,
  requestIdFrom,
  seconds,
  ServerStreamError,
  StreamDamagedError,
  StreamInterruptedError,
} from '../../src/transport/errors.js';

describe('exitCodeForStatus', () => {
  it('401/403 → 3, 429 → 5, other 4xx → 4, 5xx and anything else → 6', () => {
    expect([401, 403, 429, 400, 404, 499, 500, 503, 399, 302, 600].map(exitCodeForStatus)).toEqual([3, 3, 5, 4, 4, 4, 6, 6, 6, 6, 6]);
  });
});

describe('httpErrorFrom', () => {
  it("says who refused, the status and the gateway's message, with the body's details", () => {
    const error = httpErrorFrom(400, { 'content-type': 'application/json', 'x-request-id': 'req-1' }, '{"error":{"message":"bad field","type":"invalid_request_error","param":"temperature","code":"bad"}}');
    expect(error).toBeInstanceOf(HttpError);
    expect(error.message).toBe('gateway rejected the request: HTTP 400: bad field');
    expect(error).toMatchObject({ status: 400, gatewayMessage: 'bad field', code: 'bad', type: 'invalid_request_error', param: 'temperature', requestId: 'req-1', exitCode: ExitCode.rejected, name: 'HttpError' });
    expect(error.hint).toBeUndefined();
  });

  it('falls back to the status phrase, then to "no message"; 5xx is a gateway error', () => {
    expect(httpErrorFrom(502, {}, '').message).toBe('gateway error: HTTP 502: Bad Gateway');
    expect(httpErrorFrom(599, {}, '  ').message).toBe('gateway error: HTTP 599: no message');
    expect(httpErrorFrom(500, {}, 'boom').message).toBe('gateway error: HTTP 500: boom');
  });

  it('hints at the key, at the model list and at waiting; a given hint and extra win', () => {
    expect(httpErrorFrom(401, {}, '').hint).toBe('check the key: gatechat config set api-key');
    expect(httpErrorFrom(403, {}, '').hint).toBe('check the key: gatechat config set api-key');
    expect(httpErrorFrom(404, {}, '').hint).toBe('list models: gatechat models');
    expect(httpErrorFrom(429, {}, '').hint).toBe('rate limited; try again later');
    expect(httpErrorFrom(500, {}, '').hint).toBeUndefined();
    const refused = httpErrorFrom(429, {}, 'slow down', [], 'the gateway asks to wait 120 s', 'my hint');
    expect(refused.message).toBe('gateway rejected the request: HTTP 429: slow down (the gateway asks to wait 120 s)');
    expect(refused.hint).toBe('my hint');
    expect(refused.exitCode).toBe(ExitCode.rateLimited);
  });

  it('masks the key when the gateway echoes it back', () => {
    const error = httpErrorFrom(401, {}, '{"error":{"message":"invalid key sk-secret-123"}}', ['sk-secret-123']);
    expect(error.message).not.toContain('sk-secret-123');
    expect(error.gatewayMessage).not.toContain('sk-secret-123');
    expect(error.exitCode).toBe(ExitCode.auth);
  });
});

describe('requestIdFrom', () => {
  it('takes x-request-id, then request-id, then x-amzn-requestid', () => {
    expect(requestIdFrom({ 'x-request-id': 'a', 'request-id': 'b', 'x-amzn-requestid': 'c' })).toBe('a');
    expect(requestIdFrom({ 'request-id': 'b', 'x-amzn-requestid': 'c' })).toBe('b');
    expect(requestIdFrom({ 'x-amzn-requestid': 'c' })).toBe('c');
    expect(requestIdFrom({})).toBeNull();
  });
});

describe('the other transport errors', () => {
  it('NetworkError: exit 7, retryable by default only before the answer began', () => {
    const cause = new Error('ECONNREFUSED');
    const connect = new NetworkError('connect', 'cannot connect', { cause, hint: 'is it running?' });
    expect(connect).toMatchObject({ exitCode: ExitCode.network, phase: 'connect', retryable: true, hint: 'is it running?', name: 'NetworkError', cause });
    expect(new NetworkError('headers', 'x').retryable).toBe(true);
    expect(new NetworkError('idle', 'x').retryable).toBe(false);
    expect(new NetworkError('body', 'x').retryable).toBe(false);
    expect(new NetworkError('connect', 'x', { retryable: false }).retryable).toBe(false);
    expect('cause' in new NetworkError('total', 'x')).toBe(false);
  });

  it('StreamInterruptedError and StreamDamagedError: exit 8, saying what was lost', () => {
    expect(new StreamInterruptedError()).toMatchObject({ exitCode: ExitCode.truncated, name: 'StreamInterruptedError', message: 'stream interrupted: the connection closed before the end of the answer' });
    expect(new StreamInterruptedError('idle 30 s').message).toBe('stream interrupted: the connection closed before the end of the answer (idle 30 s)');
    expect(new StreamDamagedError(1, '{"a', false)).toMatchObject({ exitCode: ExitCode.truncated, name: 'StreamDamagedError', message: 'stream damaged: 1 data event was not valid JSON ("{\\"a"), so the answer is incomplete' });
    expect(new StreamDamagedError(2, 'x', true).message).toBe(
      'stream damaged: 2 data events were not valid JSON ("x"), so the answer is incomplete; then the connection closed before the end of the answer',
    );
  });

  it('ServerStreamError: exit 6 with the gateway message and its status', () => {
    expect(new ServerStreamError('Overloaded', 529)).toMatchObject({ exitCode: ExitCode.server, message: 'Overloaded', status: 529, name: 'ServerStreamError' });
    expect(new ServerStreamError('x').status).toBeNull();
  });

  it('seconds: one decimal at most, none when whole', () => {
    expect([300, 120_000, 1250, 0].map(seconds)).toEqual(['0.3 s', '120 s', '1.3 s', '0 s']);
  });
});
