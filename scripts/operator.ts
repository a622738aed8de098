/**
 * What the operator commands (scim-token, token --username, seed) share: they talk to the running
 * server rather than to the database, because the embedded database has a single opener (the
 * server), with a short-lived ADMIN JWT they sign themselves with the configured secret
 * (AUTH_JWT_SECRET, or the one generated under DATA_DIR), as `npm run token` does. The server's
 * address is the config's `baseUrl`, by the server's own rule (src/config.ts): BASE_URL, else
 * http://localhost:$PORT (3000 without PORT), so the same settings that started the server reach it.
 * A failure is one line on stderr and exit status 1.
 */
import { signToken } from '../src/auth/jwt.ts';
import { resolveJwtSecret } from '../src/auth/secret.ts';
import { ConfigError, loadConfig, type Config } from '../src/config.ts';

const REQUEST_TIMEOUT_MS = 30_000;

/** A refusal or an unreachable server, reported as one line without a stack. */
export class Failure extends Error {}

export interface Answer {
  response: Response;
  error?: unknown;
}

/** One line naming the call and what the server said (a Problem's detail and field errors). */
export function refusal(what: string, { response, error }: Answer): Failure {
  const problem = (typeof error === 'object' && error !== null ? error : {}) as {
    detail?: string;
    errors?: { field: string; message: string }[];
  };
  const fields = problem.errors?.map((e) => `${e.field} ${e.message}`).join('; ');
  const said = [problem.detail, fields].filter(Boolean).join(': ') || response.statusText;
  return new Failure(`${what} was answered ${response.status}: ${said}`.replace(/\s+/g, ' '));
}

/**
 * The reason a request never got an answer, e.g. `connect ECONNREFUSED 127.0.0.1:3000`, and the
 * setting that chose the address (BASE_URL when set, else PORT).
 */
function unreachable(baseUrl: string, error: unknown, env: NodeJS.ProcessEnv): Failure {
  const cause = (error as { cause?: { message?: string; code?: string } }).cause;
  // Happy eyeballs over `localhost` fails with an AggregateError whose message is empty; its code is not.
  const reason = cause?.message || cause?.code || (error as Error).message;
  const hint = env.BASE_URL?.trim()
    ? 'is BASE_URL its address?'
    : 'on that port? Give this command the PORT (or BASE_URL) the server was started with';
  return new Failure(`cannot reach the server at ${baseUrl} (${reason}); is it running, and ${hint}`);
}

export interface Operator {
  config: Config;
  /** A JWT for `sub` with `roles`, valid for five minutes. */
  sign: (sub: string, roles?: string[]) => Promise<string>;
  /** The fetch for the SDK clients: every request times out after 30 s. */
  fetch: typeof fetch;
  /** Awaits a client call, turning a network failure into a Failure naming the server. */
  call: <R>(request: () => Promise<R>) => Promise<R>;
}

/** `env`: the settings the command was started with (a test passes its own; the process, process.env). */
export function operator(env: NodeJS.ProcessEnv = process.env): Operator {
  const config = loadConfig(env);
  const secret = resolveJwtSecret(config);
  return {
    config,
    sign: (sub, roles = []) => signToken(secret, { sub, roles, expiresIn: 300 }),
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
    call: async (request) => {
      try {
        return await request();
      } catch (error) {
        if (error instanceof Failure) throw error;
        // fetch rejects with a TypeError when nothing answers, and with a TimeoutError after 30 s.
        if (error instanceof TypeError || (error as Error).name === 'TimeoutError') throw unreachable(config.baseUrl, error, env);
        throw new Failure((error as Error).message);
      }
    },
  };
}

/** Where a command writes: its result (`out`) and a failure's one line (`err`), each given without its newline. */
export interface CommandOutput {
  out: (text: string) => void;
  err: (line: string) => void;
}

/**
 * Runs a command's main: its result on `out`, any failure as one line on `err`; returns the exit
 * status (0, or 1 after a failure). Exported so that a test runs a command in its own process, as
 * the command's process does, without paying for a process of its own each time.
 */
export async function commandStatus(main: () => Promise<string>, output: CommandOutput): Promise<number> {
  try {
    output.out(await main());
    return 0;
  } catch (error) {
    const message = error instanceof ConfigError ? `invalid configuration: ${error.message}` : (error as Error).message;
    output.err(`error: ${message}`);
    return 1;
  }
}

/** Runs a command's main as its process: its result on stdout, any failure as one line on stderr and status 1. */
export async function runCommand(main: () => Promise<string>): Promise<void> {
  const status = await commandStatus(main, { out: (text) => process.stdout.write(`${text}\n`), err: (line) => console.error(line) });
  if (status) process.exitCode = status;
}
