// SPEC §16 budgets: --max-cost for the run and budget-daily over today's ledger — when no new request
// may start, and the one line (exit 11) that says which budget and how much was spent.
import { describe, expect, it } from 'vitest';
import { Budget, BudgetError } from '../../src/session/budget.js';

describe('Budget', () => {
  it('without limits is never reached, but still counts what was spent', () => {
    const budget = new Budget({});
    budget.charge({ usd: 5, source: 'gateway' });
    budget.charge(null);
    budget.charge({ usd: 0.5, source: 'prices' });
    expect(budget.spent).toBe(5.5);
    expect(budget.reached()).toBeNull();
  });

  it('--max-cost: reached at exactly the limit, not below it', () => {
    const budget = new Budget({ maxCost: 0.1 });
    expect(budget.reached()).toBeNull();
    budget.charge({ usd: 0.05, source: 'gateway' });
    expect(budget.reached()).toBeNull();
    budget.charge({ usd: 0.05, source: 'gateway' });
    const error = budget.reached();
    expect(error).toBeInstanceOf(BudgetError);
    expect(error!.name).toBe('BudgetError');
    expect(error!.exitCode).toBe(11);
    expect(error!.message).toBe('budget reached: --max-cost $0.1000, this run spent $0.1000; no new request was started');
  });

  it('--max-cost 0 stops before the first request', () => {
    expect(new Budget({ maxCost: 0 }).reached()?.message).toBe('budget reached: --max-cost $0, this run spent $0; no new request was started');
  });

  it('counts requests of unknown cost as $0 and says how many', () => {
    const budget = new Budget({ maxCost: 1 });
    budget.charge(null);
    budget.charge({ usd: 1, source: 'gateway' });
    expect(budget.reached()!.message).toBe('budget reached: --max-cost $1.0000, this run spent $1.0000 (1 request of unknown cost counted as $0); no new request was started');
    budget.charge(null);
    expect(budget.reached()!.message).toContain('(2 requests of unknown cost counted as $0)');
  });

  it('budget-daily: what the ledger held today plus this run, reached at the limit, naming the profile and how to change it', () => {
    const budget = new Budget({ daily: { usd: 2, profile: 'work', spentToday: { usd: 1.5, unknown: 0 } } });
    expect(budget.reached()).toBeNull();
    budget.charge({ usd: 0.25, source: 'gateway' });
    expect(budget.reached()).toBeNull();
    budget.charge({ usd: 0.25, source: 'gateway' });
    const error = budget.reached()!;
    expect(error.exitCode).toBe(11);
    expect(error.message).toBe("budget reached: budget-daily $2.0000 of profile work, today's spending is $2.0000");
    expect(error.hint).toBe('to change it: gatechat config set --profile work budget-daily <usd>');
  });

  it('budget-daily without a profile; unknown costs of the ledger and of this run add up', () => {
    const budget = new Budget({ daily: { usd: 1, profile: undefined, spentToday: { usd: 1, unknown: 2 } } });
    budget.charge(null);
    const error = budget.reached()!;
    expect(error.message).toBe("budget reached: budget-daily $1.0000, today's spending is $1.0000 (3 requests of unknown cost counted as $0)");
    expect(error.hint).toBe('to change it: gatechat config set budget-daily <usd>');
  });

  it('--max-cost is named first when both are reached', () => {
    const budget = new Budget({ maxCost: 0.5, daily: { usd: 0.5, profile: undefined, spentToday: { usd: 0, unknown: 0 } } });
    budget.charge({ usd: 0.5, source: 'gateway' });
    expect(budget.reached()!.message).toMatch(/^budget reached: --max-cost/);
    // Only the daily budget reached: it is the one named.
    const daily = new Budget({ maxCost: 10, daily: { usd: 0.5, profile: undefined, spentToday: { usd: 0.4, unknown: 0 } } });
    daily.charge({ usd: 0.1, source: 'gateway' });
    expect(daily.reached()!.message).toMatch(/^budget reached: budget-daily/);
  });
});
