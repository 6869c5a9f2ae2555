import { UsageError } from '../exit-codes.js';
import type { Attachment } from '../protocol/events.js';
import { MAX_TEXT_BYTES, sniff } from './attachments.js';

// SPEC §18 command output: `-a '!git diff --staged'` runs the command and attaches what it printed,
// headed by the command. Loaded only when such an attachment is given.

/** How long a command may run before it (and what it started) is stopped. */
export const COMMAND_INPUT_TIMEOUT_MS = 30_000;
/** How much of a failed command's stderr is kept for the error line. */
const STDERR_TAIL_BYTES = 4096;
/** Marks the command's processes, to stop every one of them at the time limit (config/process-tree.ts). */
const RUN_MARK_VARIABLE = 'GATECHAT_INPUT_COMMAND_RUN';

/** The heading of the attached block: the command as a shell prompt line. */
export const commandHeading = (command: string): string => `$ ${command}`;

/** The last non-empty line of what it said on stderr, short and without control characters. */
function stderrTail(bytes: Buffer): string {
  const lines = bytes.toString('utf8').split(/\r?\n/).map((line) => line.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim()).filter(Boolean);
  const last = lines.at(-1) ?? '';
  return last.length > 200 ? `…${last.slice(-200)}` : last;
}

/**
 * Runs `value` (`!<command>`) through `$SHELL -c` (else /bin/sh) in the current directory, with no
 * stdin (gatechat's may be the prompt) and stdout captured up to the text limit. Anything but a clean
 * exit with UTF-8 text is a UsageError (exit 2) naming the command: nothing is sent.
 */
export async function runCommandInput(value: string, timeoutMs = COMMAND_INPUT_TIMEOUT_MS): Promise<Attachment> {
  const command = value.slice(1);
  const label = `-a ${value}`;
  if (!command.trim()) throw new UsageError(`${label}: expected a command after !`);
  const [{ spawn }, { randomBytes }] = await Promise.all([import('node:child_process'), import('node:crypto')]);
  const mark = randomBytes(12).toString('hex');
  const shell = process.env.SHELL || '/bin/sh';
  const child = spawn(shell, ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, [RUN_MARK_VARIABLE]: mark } });
  const out: Buffer[] = [];
  let outBytes = 0;
  let tail = Buffer.alloc(0);
  let overflow = false;

  const stop = async () => {
    if (child.pid !== undefined && process.platform !== 'win32') {
      const { stopProcessTree } = await import('../config/process-tree.js');
      stopProcessTree(child.pid, { name: RUN_MARK_VARIABLE, value: mark });
    } else child.kill('SIGKILL');
    child.stdout.destroy();
    child.stderr.destroy();
  };

  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error; timedOut?: boolean; overflow?: boolean }>((resolve) => {
    let settled = false;
    const settle = (result: Parameters<typeof resolve>[0]) => {
      // Stryker disable next-line ConditionalExpression: a promise settles once anyway; the guard only skips a second, no-op resolve
      if (settled) return;
      // Stryker disable next-line BooleanLiteral: as above, a later resolve of the settled promise changes nothing
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    // Settled once they are stopped, not on 'close': a grandchild could hold the pipes open for ever.
    const timer = setTimeout(() => void stop().finally(() => settle({ code: null, signal: null, timedOut: true })), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_TEXT_BYTES) {
        if (!overflow) {
          overflow = true;
          void stop().finally(() => settle({ code: null, signal: null, overflow: true }));
        }
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > STDERR_TAIL_BYTES) tail = tail.subarray(tail.length - STDERR_TAIL_BYTES);
    });
    child.on('error', (error) => settle({ code: null, signal: null, error }));
    // Past the limit the command is being stopped: its exit (even a clean one, had it just finished) is no answer.
    child.on('close', (code, signal) => {
      if (!overflow) settle({ code, signal });
    });
  });

  if (ended.timedOut) throw new UsageError(`${label}: the command did not finish within ${timeoutMs / 1000} s (stopped)`);
  if (ended.overflow) throw new UsageError(`${label}: the output is over the ${MAX_TEXT_BYTES / (1024 * 1024)} MiB limit for text`);
  if (ended.error) throw new UsageError(`${label}: could not start ${shell} (${(ended.error as NodeJS.ErrnoException).code ?? ended.error.message})`);
  if (ended.code !== 0) {
    const why = ended.signal ? `was killed by ${ended.signal}` : `exited with status ${ended.code}`;
    const said = stderrTail(tail);
    throw new UsageError(`${label}: the command ${why}${said ? `: ${said}` : ''}`);
  }
  const sniffed = sniff(Buffer.concat(out, outBytes));
  if (sniffed.kind !== 'text') throw new UsageError(`${label}: the output is not UTF-8 text`);
  return { kind: 'text', path: commandHeading(command), text: sniffed.text };
}
