// test-suite: once (a CLI over files: no server, no database).
/**
 * The SDK's `schemaforge-check-operations` (packages/sdk/lib/check-operations.js, as shipped) refuses
 * what the server refuses, with the server's numbers: an operation over the cost limit and one over
 * the depth limit are one exact line each and exit 1, a good operation in a .tsx file passes with its
 * cost, and every number and message equals what the server's own OperationPreparer and
 * operationComplexity give for the same document over the server's schema (not the SDK's SDL copy).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'graphql';
import t from 'tap';
import { loadConfig } from '../../src/config.ts';
import { graphqlLimits, operationComplexity } from '../../src/graphql/limits.ts';
import { OperationPreparer } from '../../src/graphql/operation.ts';
import { buildGraphQLSchema } from '../../src/graphql/schema.ts';

const run = promisify(execFile);
const cli = path.resolve(import.meta.dirname, '../../packages/sdk/lib/check-operations.js');

const FEED = `query Feed($size: Int = 100) {
  users(size: $size) { content { followers { id } } }
}`;
const DEEP = `query Deep {
  user(id: "1") { followers { followers { followers { followers { followers { followers { followers { followers { followers { id } } } } } } } } } }
}`;
const GOOD = `query Good($size: Int!) {
  users(size: $size) { content { id username } }
}`;

async function check(dir: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return run(process.execPath, [cli, ...args], { cwd: dir }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

/** The server's answer for the document: its refusal's message, and its cost with these variables. */
function server(query: string, variables: Record<string, unknown>) {
  const schema = buildGraphQLSchema({});
  const prepared = new OperationPreparer(schema, graphqlLimits(loadConfig({ NODE_ENV: 'test' }))).prepare({ query, variables });
  return {
    refused: 'kind' in prepared ? [] : prepared.map((e) => e.message),
    cost: operationComplexity(schema, parse(query), variables, null),
  };
}

t.test('operations over the limits are refused with the server’s messages and costs; a good one passes', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-operations-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'src/gql'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src/feed.graphql'), `# the feed\n${FEED}\n\n${DEEP}\n`);
  fs.writeFileSync(
    path.join(dir, 'src/good.tsx'),
    `import { graphql } from './gql';\nconst url = \`\${origin}/graphql\`; // no tag: a template's end\nexport const Good = graphql(\`\n  ${GOOD.replace(/\n/g, '\n  ')}\n\`);\n`,
  );
  // Excluded like codegen.ts's '!src/gql/**': the client preset's output is no operation of the project's.
  fs.writeFileSync(path.join(dir, 'src/gql/skip.graphql'), DEEP);

  const over = await check(dir, ['src/**/*.graphql', 'src/**/*.tsx', '!src/gql/**']);
  t.equal(over.code, 1, 'exit 1');
  t.equal(
    over.stdout,
    [
      'src/feed.graphql:2:1: operation Feed: Query complexity 201 exceeds the maximum complexity of 200 (QUERY_TOO_COMPLEX); assuming $size = 100, its default',
      'src/feed.graphql:6:1: operation Deep: Query depth 11 exceeds the maximum depth of 10 (QUERY_TOO_DEEP), cost 111111112, over the limit of 200 too',
      '',
    ].join('\n'),
  );
  // The same documents as the server sees them, with the values the check assumed.
  t.same(server(FEED, {}), { refused: ['Query complexity 201 exceeds the maximum complexity of 200'], cost: 201 });
  t.same(server(DEEP, {}), { refused: ['Query depth 11 exceeds the maximum depth of 10'], cost: 111111112 });

  const good = await check(dir, ['--costs', 'src/**/*.tsx']);
  t.same(good, {
    code: 0,
    stdout: '1 operation in 1 file within the limits (cost 200, depth 10, aliases 20): Good 21 ($size = 20, the default of users(size:))\n',
  });
  t.same(server(GOOD, { size: 20 }), { refused: [], cost: 21 });

  // The server's GRAPHQL_MAX_COMPLEXITY and GRAPHQL_MAX_DEPTH, as flags.
  const raised = await check(dir, ['--max-complexity', '300', '--max-depth', '11', 'src/feed.graphql']);
  t.equal(raised.code, 1);
  t.equal(
    raised.stdout,
    'src/feed.graphql:6:1: operation Deep: Query complexity 111111112 exceeds the maximum complexity of 300 (QUERY_TOO_COMPLEX)\n',
  );
  const position = await check(dir, ['src/good.tsx', '--max-complexity', '20']);
  t.match(
    position.stdout,
    /^src\/good\.tsx:4:3: operation Good: Query complexity 21 exceeds the maximum complexity of 20 \(QUERY_TOO_COMPLEX\)/,
    'the line and column in the .tsx file',
  );
});
