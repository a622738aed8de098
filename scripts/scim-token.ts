/**
 * `npm run --silent scim-token -- --tenant <tenantId> [--name <name>]`: prints a new SCIM bearer token
 * for the tenant, creating the tenant (named `--name`, else its id) when it does not exist yet.
 *
 * It goes through the running server's admin API at BASE_URL rather than the database, because the
 * embedded database has a single opener (the server), with an ADMIN JWT it signs itself with the
 * configured secret (AUTH_JWT_SECRET, or the one generated under DATA_DIR), as `npm run token` does.
 * Only the token goes to stdout; any failure is one line on stderr and exit status 1.
 */
import { parseArgs } from 'node:util';
import { createAdminClient } from '../generated/client/rest.ts';
import { signToken } from '../src/auth/jwt.ts';
import { resolveJwtSecret } from '../src/auth/secret.ts';
import { ConfigError, loadConfig } from '../src/config.ts';

const USAGE = 'usage: npm run --silent scim-token -- --tenant <tenantId> [--name <tenant name>]';
/** Not a stored user's id: an operator credential, like the tokens of `npm run token`. */
const OPERATOR = 'operator:scim-token';
const REQUEST_TIMEOUT_MS = 30_000;

class Failure extends Error {}

interface Answer {
  response: Response;
  error?: unknown;
}

/** One line naming the call and what the server said (a Problem's detail and field errors). */
function refusal(what: string, { response, error }: Answer): Failure {
  const problem = (typeof error === 'object' && error !== null ? error : {}) as {
    detail?: string;
    errors?: { field: string; message: string }[];
  };
  const fields = problem.errors?.map((e) => `${e.field} ${e.message}`).join('; ');
  const said = [problem.detail, fields].filter(Boolean).join(': ') || response.statusText;
  return new Failure(`${what} was answered ${response.status}: ${said}`.replace(/\s+/g, ' '));
}

/** The reason a request never got an answer, e.g. `connect ECONNREFUSED 127.0.0.1:3000`. */
function unreachable(baseUrl: string, error: unknown): Failure {
  const cause = (error as { cause?: { message?: string; code?: string } }).cause;
  // Happy eyeballs over `localhost` fails with an AggregateError whose message is empty; its code is not.
  const reason = cause?.message || cause?.code || (error as Error).message;
  return new Failure(`cannot reach the server at ${baseUrl} (${reason}); is it running, and is BASE_URL its address?`);
}

async function main(): Promise<string> {
  let values: { tenant?: string; name?: string };
  try {
    ({ values } = parseArgs({ options: { tenant: { type: 'string' }, name: { type: 'string' } } }));
  } catch (error) {
    throw new Failure(`${(error as Error).message}; ${USAGE}`);
  }
  const tenantId = values.tenant;
  if (!tenantId) throw new Failure(USAGE);
  const config = loadConfig();
  const adminToken = await signToken(resolveJwtSecret(config), { sub: OPERATOR, roles: ['ADMIN'], expiresIn: 300 });
  const client = createAdminClient({
    baseUrl: config.baseUrl,
    headers: { authorization: `Bearer ${adminToken}` },
    fetch: (request) => fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
  });
  const call = async <R extends Answer>(request: () => Promise<R>): Promise<R> => {
    try {
      return await request();
    } catch (error) {
      throw unreachable(config.baseUrl, error);
    }
  };
  const path = { tenantId };

  const existing = await call(() => client.GET('/api/v1/admin/tenants/{tenantId}', { params: { path } }));
  if (existing.response.status === 404) {
    const created = await call(() => client.POST('/api/v1/admin/tenants', { body: { id: tenantId, name: values.name ?? tenantId } }));
    // 409: created by someone else meanwhile, which is as good.
    if (!created.data && created.response.status !== 409) throw refusal(`creating tenant ${tenantId}`, created);
  } else if (!existing.data) {
    throw refusal(`looking up tenant ${tenantId}`, existing);
  }

  const issued = await call(() => client.POST('/api/v1/admin/tenants/{tenantId}/scim-tokens', { params: { path } }));
  if (!issued.data) throw refusal(`issuing a SCIM token for tenant ${tenantId}`, issued);
  return issued.data.token;
}

try {
  process.stdout.write(`${await main()}\n`);
} catch (error) {
  const message =
    error instanceof Failure
      ? error.message
      : error instanceof ConfigError
        ? `invalid configuration: ${error.message}`
        : (error as Error).message;
  console.error(`error: ${message}`);
  process.exitCode = 1;
}
