import type { Settings } from '../config/settings.js';
import { Budget } from '../session/budget.js';
import { spentToday } from '../session/ledger-read.js';

// One gatechat process is one run: compare's sessions, a batch's lines and a tool loop's steps all
// spend from the same budget (SPEC §16).
let budget: Budget | undefined;

/** The run's budget (made on first use), or undefined when neither --max-cost nor budget-daily is set. */
export function runBudget(settings: Settings, maxCost: number | undefined): Budget | undefined {
  if (budget) return budget;
  if (maxCost === undefined && settings.budgetDaily === undefined) return undefined;
  budget = new Budget({
    ...(maxCost !== undefined ? { maxCost } : {}),
    ...(settings.budgetDaily !== undefined
      ? { daily: { usd: settings.budgetDaily, profile: settings.profile, spentToday: spentToday(settings.profile) } }
      : {}),
  });
  return budget;
}
