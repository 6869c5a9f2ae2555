import { ExitCode, GatechatError, type ExitCodeValue } from '../exit-codes.js';
import { describeErrorBody } from '../protocol/error-body.js';
import { redactSecrets } from './headers.js';
import { statusText } from './status-text.js';

/** SPEC §4: 401/403 → 3, 429 → 5, other 4xx → 4, 5xx and anything unexpected → 6. */
export function exitCodeForStatus(status: number): ExitCodeValue {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 429) return ExitCode.rateLimited;
  if (status >= 400 && status < 500) return ExitCode.rejected;
  return ExitCode.server;
}

function hintForStatus(status: number): string | undefined {
  if (status === 401 || status === 403) return 'check the key: gatechat config set api-key';
  if (status === 404) return 'list models: gatechat models';
  if (status === 429) return 'rate limited; try again later';
  return undefined;
}

export interface HttpErrorDetails {
  status: number;
  gatewayMessage: string;
  code: string | number | null;
  type: string | null;
  param: string | null;
  requestId: string | null;
}

/** The gateway answered with a status that is not an answer (after any retries). */
export class HttpError extends GatechatError {
  readonly status: number;
  readonly gatewayMessage: string;
  readonly code: string | number | null;
  readonly type: string | null;
  readonly param: string | null;
  readonly requestId: string | null;

  constructor(details: HttpErrorDetails, message?: string, hint?: string) {
    super(message ?? httpErrorMessage(details.status, details.gatewayMessage), exitCodeForStatus(details.status), hint ?? hintForStatus(details.status));
    this.name = 'HttpError';
    this.status = details.status;
    this.gatewayMessage = details.gatewayMessage;
    this.code = details.code;
    this.type = details.type;
    this.param = details.param;
    this.requestId = details.requestId;
  }
}

function httpErrorMessage(status: number, gatewayMessage: string): string {
  const what = status >= 400 && status < 500 ? 'gateway rejected the request' : 'gateway error';
  const reason = gatewayMessage !== '' ? gatewayMessage : (statusText(status) ?? 'no message');
  return `${what}: HTTP ${status}: ${reason}`;
}

/** Request ids gateways commonly send; quoted in bug reports to the gateway operator. */
export function requestIdFrom(headers: Record<string, string>): string | null {
  return headers['x-request-id'] ?? headers['request-id'] ?? headers['x-amzn-requestid'] ?? null;
}

/**
 * Builds the error for a final non-2xx answer. `secrets` are masked because some gateways echo the
 * offending key back in their message. `extra` is appended (e.g. why a retry was refused).
 */
export function httpErrorFrom(
  status: number,
  headers: Record<string, string>,
  bodyText: string,
  secrets: string[] = [],
  extra?: string,
  hint?: string,
): HttpError {
  const info = describeErrorBody(bodyText, headers['content-type']);
  const gatewayMessage = redactSecrets(info.message, secrets);
  const details: HttpErrorDetails = {
    status,
    gatewayMessage,
    code: info.code,
    type: info.type,
    param: info.param,
    requestId: requestIdFrom(headers),
  };
  const base = httpErrorMessage(status, gatewayMessage);
  return new HttpError(details, extra ? `${base} (${extra})` : base, hint);
}

/** `total`: the whole request's deadline (--max-time). */
export type NetworkPhase = 'connect' | 'headers' | 'idle' | 'body' | 'total';

/** Connect failures and timeouts (exit 7). `retryable` is false for e.g. certificate errors. */
export class NetworkError extends GatechatError {
  readonly phase: NetworkPhase;
  readonly retryable: boolean;

  constructor(phase: NetworkPhase, message: string, options: { retryable?: boolean; cause?: unknown; hint?: string } = {}) {
    super(message, ExitCode.network, options.hint);
    this.name = 'NetworkError';
    this.phase = phase;
    this.retryable = options.retryable ?? (phase === 'connect' || phase === 'headers');
    if (options.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** The connection closed after the answer began: what arrived was shown, the rest is lost (exit 8). */
export class StreamInterruptedError extends GatechatError {
  constructor(detail?: string) {
    super(`stream interrupted: the connection closed before the end of the answer${detail ? ` (${detail})` : ''}`, ExitCode.truncated);
    this.name = 'StreamInterruptedError';
  }
}

/** An error event inside a 200 stream (exit 6); the message is the gateway's own. */
export class ServerStreamError extends GatechatError {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message, ExitCode.server);
    this.name = 'ServerStreamError';
  }
}

/** "0.3 s", "120 s": the unit the user typed in --timeout. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * Data events whose JSON did not parse (SPEC §5.4): what they carried is lost, so the answer is
 * incomplete even when the end marker followed. The text around them was shown and is kept (exit 8).
 */
export class StreamDamagedError extends GatechatError {
  constructor(count: number, sample: string, alsoCut: boolean) {
    const events = count === 1 ? '1 data event was' : `${count} data events were`;
    super(
      `stream damaged: ${events} not valid JSON (${JSON.stringify(sample)}), so the answer is incomplete${alsoCut ? '; then the connection closed before the end of the answer' : ''}`,
      ExitCode.truncated,
    );
    this.name = 'StreamDamagedError';
  }
}
