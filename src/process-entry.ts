/**
 * What the two process entries (src/main.ts, src/worker.ts) share: one-line failures, the config and
 * the shutdown on SIGTERM/SIGINT.
 */
import net from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.ts';

/**
 * Writes one `error: …` line to stderr (one per line of a message listing several problems) and exits
 * 1: what an operator's start script sees.
 */
export function fail(message: string): never {
  process.stderr.write(
    message
      .split('\n')
      .map((line) => `error: ${line}\n`)
      .join(''),
  );
  process.exit(1);
}

/**
 * The configuration, or exit 1 with the variable and the reason on one line. An unset NODE_ENV means
 * production here: whoever starts the server without saying otherwise is deploying it (`npm run dev`
 * says development).
 */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig(process.env, { defaultNodeEnv: 'production' });
  } catch (error) {
    if (error instanceof ConfigError) fail(`invalid configuration: ${error.message}`);
    throw error;
  }
}

/**
 * Exits with `port N is in use; set PORT` when something already listens there, before the database is
 * opened or migrated: a second `npm start` beside a running one should say so at once, not after a
 * start-up that touched the other one's data. The check binds and lets go; the real listen right after
 * reports the same line if the port was taken in between (see main.ts).
 */
export async function ensurePortFree(where: { port: number; host: string }, variable: string): Promise<void> {
  if (where.port === 0) return;
  const probe = net.createServer();
  const outcome = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    probe.once('error', resolve);
    probe.listen({ port: where.port, host: where.host, exclusive: true }, () => resolve(null));
  });
  if (!outcome) {
    await new Promise((resolve) => probe.close(resolve));
    return;
  }
  fail(portMessage(outcome, where.port, variable));
}

/** The one line for a port that cannot be listened on. */
export function portMessage(error: NodeJS.ErrnoException, port: number, variable: string): string {
  if (error.code === 'EADDRINUSE') return `port ${port} is in use; set ${variable}`;
  if (error.code === 'EACCES') return `port ${port} needs privileges this process lacks; set ${variable}`;
  return `cannot listen on port ${port} (${error.message}); set ${variable}`;
}

/** How long a shutdown may take before the process gives up on it. */
const SHUTDOWN_LIMIT_MS = 20_000;

/**
 * Stops the process on the first SIGTERM or SIGINT: `stop` runs once (further signals are ignored
 * while it runs) and the process exits 0. If `stop` fails, or takes longer than 20 s, the process
 * exits 1 with one `error: …` line.
 */
export function stopOnSignals(stop: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  async function shutdown(signal: NodeJS.Signals): Promise<void> {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => fail(`shutdown took longer than ${SHUTDOWN_LIMIT_MS / 1000} s`), SHUTDOWN_LIMIT_MS);
    timer.unref();
    try {
      await stop(signal);
      process.exit(0);
    } catch (error) {
      fail(`shutdown failed: ${(error as Error).message}`);
    }
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal));
}
