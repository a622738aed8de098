/**
 * Budgets of sign-in and registration attempts (decision 91): fixed one-minute windows counted in the
 * database, so every instance spends from the same budget, with one statement per key. The sizes are
 * operator settings (src/config.ts, `signInBudgets`):
 *
 * | action   | per client address                    | per account (tenant + e-mail)         |
 * |----------|---------------------------------------|---------------------------------------|
 * | login    | SIGN_IN_ATTEMPTS_PER_ADDRESS (30)     | SIGN_IN_ATTEMPTS_PER_ACCOUNT (10)     |
 * | register | REGISTRATIONS_PER_ADDRESS (10)        | REGISTRATIONS_PER_ACCOUNT (5)         |
 *
 * The client address is the request's, which is the `X-Forwarded-For` one only behind a proxy that
 * TRUST_PROXY names.
 *
 * Every attempt counts, successful or not: counting only failures would let a guesser spread its
 * tries between successful sign-ins of its own account.
 */
import type { Database } from '../../db/database.ts';
import { countInWindow } from '../../db/rate-windows.ts';
import type { SignInBudgets } from '../../config.ts';
import { RateLimited } from '../../errors.ts';

type AttemptKind = keyof SignInBudgets;

export class AttemptBudget {
  constructor(
    private readonly db: Database,
    private readonly budgets: SignInBudgets,
  ) {}

  /** Spends one attempt of `kind` from the address's and the account's budgets; RateLimited when either is spent. */
  async spend(kind: AttemptKind, address: string, account: string): Promise<void> {
    const budget = this.budgets[kind];
    const [byAddress, byAccount] = await Promise.all([
      countInWindow(this.db, `${kind}:address:${address}`),
      countInWindow(this.db, `${kind}:account:${account.toLowerCase()}`),
    ]);
    if (byAccount.count > budget.perAccount) {
      throw new RateLimited(
        byAccount.secondsLeft,
        `Too many ${kind} attempts for this account; try again in ${byAccount.secondsLeft} seconds`,
      );
    }
    if (byAddress.count > budget.perAddress) {
      throw new RateLimited(
        byAddress.secondsLeft,
        `Too many ${kind} attempts from this address; try again in ${byAddress.secondsLeft} seconds`,
      );
    }
  }
}
