/**
 * Runs passport-saml's strategy (the one passport strategy this service uses: the SAML library is
 * written as one) on a request-like object and reports what it decided, instead of letting passport
 * write to a Node response: Fastify owns the reply, and the caller turns the outcome into it.
 * (The strategy is called on an object whose prototype is the strategy, the way passport itself
 * augments strategies, with the four outcome actions replaced.)
 */
import type { Strategy } from 'passport-strategy';

type StrategyOutcome<User> =
  | { kind: 'success'; user: User }
  | { kind: 'fail'; message: string }
  | { kind: 'redirect'; url: string }
  | { kind: 'pass' };

export function runStrategy<User>(strategy: object, req: object, options: object = {}): Promise<StrategyOutcome<User>> {
  return new Promise((resolve, reject) => {
    const run = Object.create(strategy) as Strategy;
    run.success = (user: User) => resolve({ kind: 'success', user });
    run.fail = (challenge?: unknown) => {
      const message = typeof challenge === 'string' ? challenge : (challenge as { message?: string } | undefined)?.message;
      resolve({ kind: 'fail', message: message ?? 'authentication failed' });
    };
    run.redirect = (url: string) => resolve({ kind: 'redirect', url });
    run.pass = () => resolve({ kind: 'pass' });
    run.error = (error: Error) => reject(error);
    try {
      run.authenticate(req as never, options);
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
