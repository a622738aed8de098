// test-suite: once (graphql-http's protocol audit of the transport)
/**
 * graphql-http's own GraphQL-over-HTTP audit suite against the live server: every audit runs as a
 * test; an `error` fails it, while `warn` and `notice` (recommendations) are listed by name.
 */
import { serverAudits } from 'graphql-http';
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';

t.test('graphql-http server audits', async (t) => {
  const server = await sharedServer();
  const audits = serverAudits({ url: `${server.baseUrl}/graphql` });
  t.ok(audits.length > 0);
  const recommendations: string[] = [];
  for (const audit of audits) {
    const result = await audit.fn();
    if (result.status === 'error') t.fail(`${audit.id} ${audit.name}: ${result.reason}`);
    else t.pass(`${audit.id} ${audit.name}: ${result.status}`);
    if (result.status === 'warn' || result.status === 'notice')
      recommendations.push(`${result.status} ${audit.id} ${audit.name}: ${result.reason}`);
  }
  t.comment(
    `${audits.length} audits; ${recommendations.length} warnings/notices${recommendations.length ? `:\n${recommendations.join('\n')}` : ''}`,
  );
});
