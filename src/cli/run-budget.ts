import type { Settings } from '../config/settings.js';
import { Budget } from '../session/budget.js';

// One gatechat process is one run: compare's sessions, a batch's lines and a tool loop's steps all
// spend from the same budget (SPEC §16).
let budget: Budget | undefined;

/**
 * The run's budget (made on first use), or undefined when neither --max-cost nor budget-daily is set. The
 * ledger reader loads only for budget-daily: a plain one-shot does not carry it (SPEC §10).
 */
export async function runBudget(settings: Settings, maxCost: number | undefined): Promise<Budget | undefined> {
  if (budget) return budget;
  if (maxCost === undefined && settings.budgetDaily === undefined) return undefined;
  const spentToday = settings.budgetDaily === undefined ? undefined : (await import('../session/ledger-read.js')).spentToday;
  // Another session of the run (compare) may have made it while this one waited for the import.
  if (budget) return budget;
  budget = new Budget({
    ...(maxCost !== undefined ? { maxCost } : {}),
    ...(settings.budgetDaily !== undefined
      ? { daily: { usd: settings.budgetDaily, profile: settings.profile, spentToday: spentToday!(settings.profile) } }
      : {}),
  });
  return budget;
}
