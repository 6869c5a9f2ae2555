import { ExitCode, GatechatError, UsageError } from '../exit-codes.js';
import { beyondLatin1 } from './keys.js';

/** SPEC §14: a password manager gets 10 s (an unlock prompt included) to print the key. */
export const API_KEY_CMD_TIMEOUT_MS = 10_000;
/** A key is short; anything this long is not one, and we stop reading. */
const MAX_OUTPUT_BYTES = 64 * 1024;
/** Marks the command's processes (its value unique to the run), for stopping them all at the limit. */
const RUN_MARK_VARIABLE = 'GATECHAT_KEY_COMMAND_RUN';

/** The command and everything it started (gpg, a pinentry, an agent it launched). */
async function stopAll(pid: number | undefined, mark: string, fallback: () => void): Promise<void> {
  if (pid === undefined || process.platform === 'win32') return void fallback();
  const { stopProcessTree } = await import('./process-tree.js');
  stopProcessTree(pid, { name: RUN_MARK_VARIABLE, value: mark });
}

function failure(command: string, what: string): GatechatError {
  // Its output is never shown: on failure it may still hold the secret, or most of it.
  return new GatechatError(`api-key-cmd ${JSON.stringify(command)} ${what}; its output is not shown`, ExitCode.auth, 'check the command in: gatechat config list');
}

/**
 * Runs the `api-key-cmd` through the shell and returns its trimmed stdout. Failure, a time-out, empty
 * or multi-line output is exit 3 naming the command. stdin is not passed on (it may be the prompt);
 * stderr is discarded too, since tools print secrets or their fragments there on errors.
 *
 * It runs in gatechat's session and process group, so an unlock prompt can open /dev/tty and read from
 * it (a new session has no terminal, and a background process group is stopped when it reads one). At
 * the limit it and every process it started are stopped (process-tree.ts).
 */
export async function runApiKeyCommand(command: string, timeoutMs = API_KEY_CMD_TIMEOUT_MS): Promise<string> {
  // Loaded only when a key command is configured: start-up cost stays off everyone else's path.
  const [{ spawn }, { randomBytes }] = await Promise.all([import('node:child_process'), import('node:crypto')]);
  const mark = randomBytes(12).toString('hex');
  const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, [RUN_MARK_VARIABLE]: mark } });
  const chunks: Buffer[] = [];
  let size = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_OUTPUT_BYTES) chunks.push(chunk);
  });
  const status = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error; timedOut?: boolean }>((resolve) => {
    const timer = setTimeout(() => {
      // Resolve once they are stopped, not on 'close': a grandchild could hold stdout open for ever.
      void stopAll(child.pid, mark, () => child.kill('SIGKILL')).finally(() => {
        child.stdout.destroy();
        resolve({ code: null, signal: null, timedOut: true });
      });
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, error });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });

  if (status.timedOut) throw failure(command, `did not finish within ${timeoutMs / 1000} s`);
  if (status.error) throw failure(command, `could not be started (${(status.error as NodeJS.ErrnoException).code ?? 'error'})`);
  if (status.code !== 0) throw failure(command, status.signal ? `was killed by ${status.signal}` : `failed with exit status ${status.code}`);
  if (size > MAX_OUTPUT_BYTES) throw failure(command, `printed more than ${MAX_OUTPUT_BYTES / 1024} KiB`);
  const key = Buffer.concat(chunks).toString('utf8').trim();
  if (key === '') throw failure(command, 'printed nothing');
  if (/[\s\u0000-\u001f\u007f]/.test(key)) throw failure(command, 'printed more than one line or spaces (the key must be its only output)');
  // A key no header can carry is a configuration error (exit 2, SPEC §20), not a failed command: never sent.
  if (beyondLatin1(key)) {
    throw new UsageError(`api-key-cmd ${JSON.stringify(command)} printed a key with characters outside Latin-1, which an HTTP header cannot carry; its output is not shown`);
  }
  return key;
}
