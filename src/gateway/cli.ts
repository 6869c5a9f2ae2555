/** `gatechat serve`: the dev gateway as a foreground process, one log line per request on stderr. */
import { isIP } from 'node:net';
import { UsageError } from '../exit-codes.js';
import { isLoopbackHost } from '../transport/base-url.js';
import { startGateway, type RunningGateway } from './server.js';

export interface ServeOptions {
  port: number;
  host: string;
  apiKey?: string;
}

const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?$/;

/**
 * `--host`: an IP address (IPv6 with or without brackets) or a host name. Checked before listening:
 * an empty value would make Node listen on every interface, a URL would fail with a DNS error.
 */
export function parseListenHost(raw: string): string {
  const text = raw.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(text) || HOST_NAME.test(text)) return text;
  throw new UsageError(`--host: expected an IP address or host name such as 127.0.0.1, got ${JSON.stringify(raw)}`);
}

/** What the operating system said about listening, as the user's mistake (exit 2) when it is one. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(`serve: ${where} is already in use`, 'choose another --port, or --port 0 for any free one');
    case 'EADDRNOTAVAIL':
      return new UsageError(`serve: cannot listen on ${host}: not an address of this machine`, 'try --host 127.0.0.1');
    case 'EAFNOSUPPORT':
      return new UsageError(`serve: cannot listen on ${host}: this machine does not support that address family`, 'try --host 127.0.0.1');
    case 'EACCES':
    case 'EPERM':
      return new UsageError(`serve: not allowed to listen on ${where}`, 'ports below 1024 need privileges: try --port 8787');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new UsageError(`serve: cannot resolve --host ${host}`, 'try --host 127.0.0.1');
    default:
      return error;
  }
}

export async function runServe(opts: ServeOptions): Promise<never> {
  const host = parseListenHost(opts.host);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let gateway: RunningGateway;
  try {
    gateway = await startGateway({
      port: opts.port,
      host,
      apiKey: opts.apiKey,
      log: (line) => log(`${new Date().toISOString()} ${line}`),
    });
  } catch (error) {
    throw listenError(error, host, opts.port);
  }
  // Handlers first: a supervisor may signal as soon as it reads the "listening" line.
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => {
      gateway.close().then(() => process.exit(0), reject);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  // The default is loopback; any other host is one the user typed, so warn rather than refuse (once
  // listening: an address this machine does not have is an error, not a warning).
  if (!isLoopbackHost(host)) {
    log(
      `gatechat serve: warning: listening on ${host}, reachable from other machines${opts.apiKey ? '' : ' with no --api-key'}; this is a development gateway`,
    );
  }
  const base = `${gateway.url}/v1`;
  log(`gatechat dev gateway listening on ${base} (Chat Completions and Messages)`);
  log(`try: ${opts.apiKey ? 'GATECHAT_API_KEY=<the --api-key value> ' : ''}gatechat --base-url ${base} -m echo "hi"`);
  return stopped;
}
