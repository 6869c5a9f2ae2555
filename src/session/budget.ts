import { ExitCode, GatechatError } from '../exit-codes.js';
import { formatUsd, type Cost } from '../protocol/cost.js';

// SPEC §16 budgets: `--max-cost` for one run, `budget-daily` per profile over today's ledger. Checked
// before each request starts, charged when it ends: requests in flight are never cut, so a run may
// end a little past its budget, never start a request after reaching it.

/** exit 11, one line naming the budget. */
export class BudgetError extends GatechatError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.budget, hint);
    this.name = 'BudgetError';
  }
}

export interface DailyBudget {
  usd: number;
  profile: string | undefined;
  /** What today's ledger held when the run began. */
  spentToday: { usd: number; unknown: number };
}

export interface BudgetLimits {
  /** --max-cost in USD. */
  maxCost?: number;
  daily?: DailyBudget;
}

export class Budget {
  #spent = 0;
  #unknown = 0;

  constructor(private readonly limits: BudgetLimits) {}

  /** USD spent by this run so far (unknown costs count as 0). */
  get spent(): number {
    return this.#spent;
  }

  charge(cost: Cost | null): void {
    if (cost === null) this.#unknown++;
    else this.#spent += cost.usd;
  }

  /** The budget that is reached, if one is: no new request may start. */
  reached(): BudgetError | null {
    const { maxCost, daily } = this.limits;
    // Stryker disable next-line ConditionalExpression: a comparison with undefined is false anyway
    if (maxCost !== undefined && this.#spent >= maxCost) {
      return new BudgetError(`budget reached: --max-cost ${formatUsd(maxCost)}, this run spent ${formatUsd(this.#spent)}${unknownNote(this.#unknown)}; no new request was started`);
    }
    if (daily) {
      const spent = daily.spentToday.usd + this.#spent;
      if (spent >= daily.usd) {
        const profile = daily.profile === undefined ? '' : ` --profile ${daily.profile}`;
        return new BudgetError(
          `budget reached: budget-daily ${formatUsd(daily.usd)}${daily.profile === undefined ? '' : ` of profile ${daily.profile}`}, today's spending is ${formatUsd(spent)}${unknownNote(daily.spentToday.unknown + this.#unknown)}`,
          `to change it: gatechat config set${profile} budget-daily <usd>`,
        );
      }
    }
    return null;
  }
}

function unknownNote(unknown: number): string {
  return unknown === 0 ? '' : ` (${unknown} request${unknown === 1 ? '' : 's'} of unknown cost counted as $0)`;
}
