/**
 * The budget of `createUser` calls per client address: CREATE_USER_PER_ADDRESS a minute (10 by
 * default), as REGISTRATIONS_PER_ADDRESS bounds registration on /auth. Every call counts, taken or
 * refused username alike: counting only successes would let a script probe which names are taken.
 */
import type { Database } from '../db/database.ts';
import { countInWindow } from '../db/rate-windows.ts';
import { RateLimited } from '../errors.ts';

export class SignUpBudget {
  constructor(
    private readonly db: Database,
    private readonly perAddress: number,
  ) {}

  /** Spends one sign-up of `address`'s budget; RateLimited when it is spent. */
  async spend(address: string): Promise<void> {
    const { count, secondsLeft } = await countInWindow(this.db, `create-user:address:${address}`);
    if (count > this.perAddress) {
      throw new RateLimited(secondsLeft, `Too many sign-ups from this address; try again in ${secondsLeft} seconds`);
    }
  }
}
