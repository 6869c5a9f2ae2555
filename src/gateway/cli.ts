/** `gatechat serve`: the dev gateway as a foreground process, one log line per request on stderr. */
import { isLoopbackHost } from '../transport/base-url.js';
import { startGateway } from './server.js';

export interface ServeOptions {
  port: number;
  host: string;
  apiKey?: string;
}

export async function runServe(opts: ServeOptions): Promise<never> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // The default is loopback; any other host is one the user typed, so warn rather than refuse.
  if (!isLoopbackHost(opts.host)) {
    log(
      `gatechat serve: warning: listening on ${opts.host}, reachable from other machines${opts.apiKey ? '' : ' with no --api-key'}; this is a development gateway`,
    );
  }
  const gateway = await startGateway({
    port: opts.port,
    host: opts.host,
    apiKey: opts.apiKey,
    log: (line) => log(`${new Date().toISOString()} ${line}`),
  });
  // Handlers first: a supervisor may signal as soon as it reads the "listening" line.
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => {
      gateway.close().then(() => process.exit(0), reject);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  const base = `${gateway.url}/v1`;
  log(`gatechat dev gateway listening on ${base} (Chat Completions and Messages)`);
  log(`try: ${opts.apiKey ? 'GATECHAT_API_KEY=<the --api-key value> ' : ''}gatechat --base-url ${base} -m echo "hi"`);
  return stopped;
}
