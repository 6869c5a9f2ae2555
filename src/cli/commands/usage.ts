import { ExitCode, UsageError } from '../../exit-codes.js';
import { scanLedger } from '../../session/ledger-read.js';
import { UsageAggregator, type UsageGrouping } from '../../session/usage-report.js';
import { usageJson, usageTable, usageTsv } from '../../render/usage.js';
import { writeWithBackpressure } from '../../render/output.js';
import { ageMs } from '../durations.js';

// `gatechat usage [--since …] [--until …] [--by day|model|profile] [--json]` (SPEC §16).

export interface UsageOptions {
  since?: string;
  until?: string;
  by?: string;
  json?: boolean;
}

/** Without --since: the last 30 days, what a look at "what did I spend lately" wants. */
export const DEFAULT_SINCE = '30d';

/**
 * `7d` (7 × 24 h before now; also `24h`, `2w`), `today`, `yesterday`, or a local date `YYYY-MM-DD`: --since from its start,
 * --until through its end (a date range reads as people say it: --since 2026-11-01 --until 2026-11-30).
 */
export function parseWhen(raw: string, option: '--since' | '--until', now = new Date()): Date {
  const text = raw.trim();
  let m: RegExpMatchArray | null;
  const age = ageMs(text);
  if (age !== null) return new Date(now.getTime() - age);
  let day: Date | null = null;
  if (text === 'today' || text === 'yesterday') {
    day = new Date(now.getFullYear(), now.getMonth(), now.getDate() - (text === 'yesterday' ? 1 : 0));
  } else if ((m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text))) {
    day = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    // new Date(2026, 1, 31) is March 3rd: a date that does not exist is refused, not moved.
    if (day.getMonth() !== Number(m[2]) - 1 || day.getDate() !== Number(m[3])) day = null;
  }
  if (day === null) throw new UsageError(`${option}: expected 7d, 24h, 2w, today, yesterday or a date YYYY-MM-DD, got ${JSON.stringify(raw)}`);
  return option === '--until' ? new Date(day.getFullYear(), day.getMonth(), day.getDate() + 1) : day;
}

function parseBy(raw: string | undefined): UsageGrouping {
  if (raw === undefined) return 'day';
  if (raw === 'day' || raw === 'model' || raw === 'profile') return raw;
  throw new UsageError(`--by: expected day, model or profile, got ${JSON.stringify(raw)}`);
}

export async function runUsageCommand(options: UsageOptions, io: { stdout: NodeJS.WriteStream }, now = new Date()): Promise<number> {
  const by = parseBy(options.by);
  const since = parseWhen(options.since ?? DEFAULT_SINCE, '--since', now);
  const until = options.until === undefined ? undefined : parseWhen(options.until, '--until', now);
  if (until && until <= since) throw new UsageError(`--until: ${options.until} is not after --since ${options.since ?? DEFAULT_SINCE}`);
  const aggregator = new UsageAggregator(by);
  scanLedger((record) => aggregator.add(record), { since: since.toISOString(), ...(until ? { until: until.toISOString() } : {}) });
  const report = aggregator.report({ since, until: until ? new Date(until.getTime() - 1) : now });
  const range = `since ${options.since ?? DEFAULT_SINCE}${options.until ? ` until ${options.until}` : ''}`;
  const text = options.json ? usageJson(report, by) : io.stdout.isTTY ? usageTable(report, by, range) : usageTsv(report, by);
  await writeWithBackpressure(io.stdout, text);
  return ExitCode.ok;
}
