/** What the two process entries (src/main.ts, src/worker.ts) share: one-line failures and the config. */
import { ConfigError, loadConfig, type Config } from './config.ts';

/** Writes one `error: …` line to stderr and exits 1: what an operator's start script sees. */
export function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
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
