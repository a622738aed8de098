/**
 * `npm run --silent scim-token -- --tenant <tenantId> [--name <name>]`: prints a new SCIM bearer token
 * for the tenant, creating the tenant (named `--name`, else its id) when it does not exist yet.
 *
 * It goes through the running server's admin API (BASE_URL, else http://localhost:$PORT:
 * scripts/operator.ts). Only the token goes to stdout; any failure is one line on stderr and exit
 * status 1.
 */
import { parseArgs } from 'node:util';
import { createAdminClient } from '../generated/client/rest.ts';
import { Failure, operator, refusal, runCommand } from './operator.ts';

const USAGE = 'usage: npm run --silent scim-token -- --tenant <tenantId> [--name <tenant name>]';
/** Not a stored user's id: an operator credential, like the tokens of `npm run token`. */
const OPERATOR = 'operator:scim-token';

/**
 * The command's main: the token, or a Failure. `args` and `env` are the process's own when it runs as
 * `npm run scim-token` (below); a test passes its own.
 */
export async function scimToken(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  let values: { tenant?: string; name?: string };
  try {
    ({ values } = parseArgs({ args, options: { tenant: { type: 'string' }, name: { type: 'string' } } }));
  } catch (error) {
    throw new Failure(`${(error as Error).message}; ${USAGE}`);
  }
  const tenantId = values.tenant;
  if (!tenantId) throw new Failure(USAGE);
  const { config, sign, fetch, call } = operator(env);
  const client = createAdminClient({
    baseUrl: config.baseUrl,
    headers: { authorization: `Bearer ${await sign(OPERATOR, ['ADMIN'])}` },
    fetch,
  });
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

// Run as `npm run scim-token`, not when a test imports the function.
if (process.argv[1]?.endsWith('scripts/scim-token.ts')) await runCommand(() => scimToken(process.argv.slice(2), process.env));
