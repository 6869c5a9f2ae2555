import type { LedgerRecord } from './ledger-read.js';

// `gatechat usage` (SPEC §16): ledger lines folded into groups. Pure: the reading is ledger-read.ts's.

export type UsageGrouping = 'day' | 'model' | 'profile';

export interface UsageRow {
  /** The day (YYYY-MM-DD, local), the model, or the profile (null: none). */
  key: string | null;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** USD of the requests whose cost is known. */
  cost_usd: number;
  /** Requests whose cost is unknown (counted as $0 above). */
  unknown_cost_requests: number;
}

export interface UsageReport {
  rows: UsageRow[];
  total: UsageRow;
  /** Cost per local day over the whole range, oldest first, days without requests included (the sparkline). */
  daily: Array<{ day: string; cost_usd: number }>;
}

function emptyRow(key: string | null): UsageRow {
  return { key, requests: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0, unknown_cost_requests: 0 };
}

function add(row: UsageRow, record: LedgerRecord): void {
  row.requests++;
  row.input_tokens += record.in ?? 0;
  row.output_tokens += record.out ?? 0;
  row.cache_read_tokens += record.cache_read ?? 0;
  row.cache_write_tokens += record.cache_write ?? 0;
  if (record.cost === null) row.unknown_cost_requests++;
  else row.cost_usd += record.cost;
}

/** The local day of an ISO time. Times of one UTC hour share a local day wherever the offset is whole hours. */
export function localDay(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

export class UsageAggregator {
  readonly #groups = new Map<string | null, UsageRow>();
  readonly #days = new Map<string, number>();
  readonly #total = emptyRow(null);
  // ts → local day costs a Date per line; 100 000 lines share a few hundred hours.
  readonly #dayOfHour = new Map<string, string>();

  constructor(private readonly by: UsageGrouping) {}

  #day(ts: string): string {
    // Stryker disable next-line MethodExpression: keyed by the whole time the cache only hits less often, the day is the same
    const hour = ts.slice(0, 13);
    let day = this.#dayOfHour.get(hour);
    if (day === undefined) {
      day = localDay(new Date(ts));
      // Half-hour time zones put one UTC hour across two local days: only whole-hour offsets are cached.
      // Stryker disable next-line ArithmeticOperator: `* 60` caches in UTC only (offset 0), which is still correct, only slower
      if (new Date(ts).getTimezoneOffset() % 60 === 0) this.#dayOfHour.set(hour, day);
    }
    return day;
  }

  add(record: LedgerRecord): void {
    const day = this.#day(record.ts);
    const key = this.by === 'day' ? day : this.by === 'model' ? record.model : record.profile;
    let row = this.#groups.get(key);
    if (!row) this.#groups.set(key, (row = emptyRow(key)));
    add(row, record);
    add(this.#total, record);
    this.#days.set(day, (this.#days.get(day) ?? 0) + (record.cost ?? 0));
  }

  /** `range`: the days the sparkline spans (the first and last day with requests when not given). */
  report(range: { since?: Date; until?: Date } = {}): UsageReport {
    const rows = [...this.#groups.values()];
    if (this.by === 'day') rows.sort((a, b) => a.key!.localeCompare(b.key!)); // YYYY-MM-DD: digits in order
    else rows.sort((a, b) => b.cost_usd - a.cost_usd || b.requests - a.requests);
    const seen = [...this.#days.keys()].sort();
    const daily: UsageReport['daily'] = [];
    if (seen.length > 0) {
      const first = range.since ?? new Date(`${seen[0]}T00:00:00`);
      const last = range.until ?? new Date(`${seen.at(-1)}T12:00:00`);
      // Day by day in local time (setDate steps over DST changes), at most a few years of them.
      for (const at = new Date(first.getFullYear(), first.getMonth(), first.getDate()); at <= last && daily.length < 3660; at.setDate(at.getDate() + 1)) {
        const day = localDay(at);
        daily.push({ day, cost_usd: this.#days.get(day) ?? 0 });
      }
    }
    return { rows, total: this.#total, daily };
  }
}
