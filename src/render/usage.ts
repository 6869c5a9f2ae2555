import { formatUsd } from '../protocol/cost.js';
import type { UsageGrouping, UsageReport, UsageRow } from '../session/usage-report.js';
import { jsonText } from './json-text.js';
import { sanitizeForTerminal } from './terminal-text.js';

// `gatechat usage` output (SPEC §16): a table with a bar per row and a daily sparkline on a terminal,
// TSV with a header when piped, the rows as JSON with --json.

const share = (row: UsageRow) => (row.requests === 0 ? 0 : row.unknown_cost_requests / row.requests);

function keyText(row: UsageRow, by: UsageGrouping): string {
  if (row.key === null) return by === 'profile' ? '(no profile)' : '–';
  return row.key;
}

/** --json: the rows, each named by its grouping. */
export function usageJson(report: UsageReport, by: UsageGrouping): string {
  const rows = report.rows.map((row) => {
    const { key, ...rest } = row;
    return { [by]: key, ...rest, cost_usd: round(rest.cost_usd), unknown_cost_share: Math.round(share(row) * 1e4) / 1e4 };
  });
  return `${jsonText(rows)}\n`;
}

/** Piped: TSV with a header; numbers as numbers, no $ and no thousands separators. */
export function usageTsv(report: UsageReport, by: UsageGrouping): string {
  const header = [by, 'requests', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'cost_usd', 'unknown_cost_share'];
  const lines = report.rows.map((row) =>
    [
      // A tab or newline in a model name would break the columns.
      (row.key ?? '').replace(/[\t\r\n]/g, ' '),
      row.requests,
      row.input_tokens,
      row.output_tokens,
      row.cache_read_tokens,
      row.cache_write_tokens,
      round(row.cost_usd),
      Math.round(share(row) * 1e4) / 1e4,
    ].join('\t'),
  );
  return `${[header.join('\t'), ...lines].join('\n')}\n`;
}

// Nano-dollars: below any price, above the float noise of summing 100 000 costs.
function round(n: number): number {
  return Math.round(n * 1e9) / 1e9;
}

const BAR_WIDTH = 24;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const SPARKS = '▁▂▃▄▅▆▇█';

/** A bar `width` cells long at most, in eighths of a cell. */
export function bar(value: number, max: number, width = BAR_WIDTH): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}

/** One character per day, its height the day's cost against the dearest day's. */
export function sparkline(values: number[]): string {
  const max = Math.max(0, ...values);
  return values.map((v) => (max <= 0 || v <= 0 ? ' ' : SPARKS[Math.min(7, Math.floor((v / max) * 7.999))])).join('');
}

const thousands = (n: number) => n.toLocaleString('en-US');

/** On a terminal: aligned columns, a bar per row (by cost; by requests when no cost is known), then the days. */
export function usageTable(report: UsageReport, by: UsageGrouping, range: string): string {
  if (report.rows.length === 0) return `no requests in the ledger ${range}\n`;
  const byCost = report.total.cost_usd > 0;
  const measure = (row: UsageRow) => (byCost ? row.cost_usd : row.requests);
  const max = Math.max(...report.rows.map(measure));
  const header = [by, 'requests', 'in', 'out', 'cached', 'cost', 'unknown', ''];
  const cells = (row: UsageRow, label: string, withBar: boolean) => [
    sanitizeForTerminal(label),
    thousands(row.requests),
    thousands(row.input_tokens),
    thousands(row.output_tokens),
    thousands(row.cache_read_tokens),
    formatUsd(row.cost_usd),
    row.unknown_cost_requests === 0 ? '' : `${Math.round(share(row) * 100)}%`,
    withBar ? bar(measure(row), max) : '',
  ];
  const table = [header, ...report.rows.map((row) => cells(row, keyText(row, by), true)), cells(report.total, 'total', false)];
  const widths = header.map((_, column) => Math.max(...table.map((line) => [...line[column]].length)));
  const line = (cell: string[]) =>
    cell
      .map((text, column) => (column === 0 || column === cell.length - 1 ? text.padEnd(widths[column]) : text.padStart(widths[column])))
      .join('  ')
      .trimEnd();
  const out = table.map(line);
  if (report.daily.length > 1) {
    const first = report.daily[0].day;
    const last = report.daily.at(-1)!.day;
    out.push('', `daily cost ${first} ${sparkline(report.daily.map((d) => d.cost_usd))} ${last}`);
  }
  if (report.total.unknown_cost_requests > 0) {
    out.push(`${report.total.unknown_cost_requests} of ${report.total.requests} requests had no known cost (counted as $0): set the model's prices with gatechat config set --model <id> price-in <usd>`);
  }
  return `${out.join('\n')}\n`;
}
