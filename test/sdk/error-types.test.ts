// test-suite: once (types only: no server, no database).
/**
 * The SDK names the GraphQL error classes the server sends: `GraphqlErrorType` (the SDK's
 * `extensions.errorType`) is exactly the server's `ErrorType` (src/graphql/errors.ts). `npm test`
 * typechecks this file, so a class added to, renamed in or dropped from either side fails there
 * (the SDK once documented UNAUTHENTICATED where the server answers UNAUTHORIZED).
 */
import t from 'tap';
import type { GraphqlError, GraphqlErrorType } from '../../generated/client/graphql-client.ts';
import type { ErrorType } from '../../src/graphql/errors.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

t.test("the SDK's error classes are the server's", async (t) => {
  const same: Same<GraphqlErrorType, ErrorType> = true;
  t.ok(same);
  const unauthorized: GraphqlError = { message: 'Authentication required', extensions: { errorType: 'UNAUTHORIZED' } };
  // @ts-expect-error: the server never sends UNAUTHENTICATED as an errorType.
  const wrong: GraphqlError = { message: 'x', extensions: { errorType: 'UNAUTHENTICATED' } };
  t.equal(unauthorized.extensions?.errorType, 'UNAUTHORIZED');
  t.ok(wrong);
});
