import type { ModelInfo } from '../client/models.js';
import { sanitizeForTerminal } from './terminal-text.js';

// `gatechat models` on a terminal (SPEC §11): id, the aliases that point at it, and the context
// length and prices when the gateway's list carries them. Columns nobody fills are left out.

/** USD per token → `$3.00` per million tokens (two significant digits below a cent). */
export function pricePerMillion(perToken: number | undefined): string {
  if (perToken === undefined) return '';
  const perMillion = perToken * 1_000_000;
  if (perMillion === 0) return '$0';
  return `$${perMillion >= 0.01 ? perMillion.toFixed(2) : perMillion.toPrecision(2)}`;
}

export function modelTable(models: readonly ModelInfo[], aliases: ReadonlyMap<string, string>): string[] {
  const aliasesOf = (id: string) => [...aliases].filter(([, target]) => target === id).map(([name]) => name);
  const columns: Array<{ title: string; cell: (m: ModelInfo) => string; right?: boolean }> = [
    { title: 'ID', cell: (m) => m.id },
    { title: 'ALIASES', cell: (m) => aliasesOf(m.id).join(', ') },
    { title: 'CONTEXT', cell: (m) => (m.context_length === undefined ? '' : m.context_length.toLocaleString('en-US')), right: true },
    { title: '$/M IN', cell: (m) => pricePerMillion(m.input_price), right: true },
    { title: '$/M OUT', cell: (m) => pricePerMillion(m.output_price), right: true },
    { title: 'OWNER', cell: (m) => m.owned_by ?? '' },
  ];
  // Gateway text is drawn on a terminal: no escape codes (SPEC §8).
  const cells = models.map((model) => columns.map((column) => sanitizeForTerminal(column.cell(model))));
  const shown = columns.map((_, i) => i === 0 || cells.some((row) => row[i] !== '')).map((keep, i) => (keep ? i : -1)).filter((i) => i >= 0);
  const widths = shown.map((i) => Math.max(columns[i].title.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]) =>
    shown
      .map((i, n) => (columns[i].right ? row[i].padStart(widths[n]) : row[i].padEnd(widths[n])))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.title)), ...cells.map(line)];
}
