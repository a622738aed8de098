// test-suite: once (the server as a process of its own; it writes logs, nothing else, the same on either engine).
/**
 * The log format as a person starting the built server sees it: `NODE_ENV=development` (what `npm run
 * dev` sets) writes pino-pretty's readable lines, a deployment one JSON object a line, and LOG_FORMAT
 * overrides either. The choice itself is tested in config.test.ts; this is pino-pretty really
 * loading in the compiled server (dist/), through pino's transport.
 */
import t, { type Test } from 'tap';
import { serverDatabaseEnv } from '../helpers/server-database.ts';
import { ensureDistBuilt, startServerProcess } from '../helpers/server-process.ts';

ensureDistBuilt();

/** The server's stdout after it has answered /readyz once, colours stripped, one entry a line. */
async function logLines(t: Test, env: Record<string, string>): Promise<string[]> {
  // A database made and migrated already: creating one (in memory too) is most of a start's CPU.
  const server = await startServerProcess({ via: 'node', env: { ...(await serverDatabaseEnv(t)), ...env } });
  t.teardown(() => void server.child.kill('SIGKILL'));
  // The access line of the helper's /readyz is written after the response: wait for it.
  const deadline = Date.now() + 10_000;
  while (!/readyz/.test(server.stdout()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  server.child.kill('SIGTERM');
  await server.exited;
  return server
    .stdout()
    .replace(/\x1b\[[0-9;]*m/g, '') // oxlint-disable-line no-control-regex -- ANSI colour codes, when pino-pretty colours
    .split('\n')
    .filter(Boolean);
}

t.test('development: pino-pretty lines, one access line a request', async (t) => {
  const lines = await logLines(t, { NODE_ENV: 'development', LOG_FORMAT: '' });
  t.ok(lines.length > 0, 'the server logged');
  t.same(
    lines.filter((line) => line.startsWith('{')),
    [],
    'no JSON line',
  );
  t.ok(
    lines.some((line) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: server started: http:\/\//.test(line)),
    `a timestamped "server started" line: ${lines.join('\n')}`,
  );
  t.ok(
    lines.some((line) => /INFO: GET \/readyz 200 · request completed/.test(line)),
    'the access line reads as method, path and status',
  );
});

t.test('production: JSON lines; LOG_FORMAT=pretty overrides it', async (t) => {
  const json = await logLines(t, { NODE_ENV: 'production', LOG_FORMAT: '' });
  const entries = json.map((line) => JSON.parse(line) as { msg?: string });
  t.ok(
    entries.some((entry) => entry.msg?.startsWith('server started')),
    'one JSON object a line',
  );
  const pretty = await logLines(t, { NODE_ENV: 'production', LOG_FORMAT: 'pretty' });
  t.ok(
    pretty.some((line) => / INFO: server started/.test(line)),
    'pretty when asked for',
  );
});
