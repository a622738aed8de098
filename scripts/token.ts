/**
 * `npm run --silent token -- (--sub <userId> | --username <name>) [--role ADMIN]... [--expires-in 3600]`:
 * prints a bearer JWT signed with the configured secret (AUTH_JWT_SECRET, or the one generated under
 * DATA_DIR). `--sub` needs nothing running; `--username` asks the running server for the user's id
 * (GraphQL `searchUsers`, an exact match of the username ranks first), e.g. `--username alice` after
 * `npm run seed`. The server is found as seed finds it (scripts/operator.ts): BASE_URL, else
 * http://localhost:$PORT, the server's own rule.
 */
import { parseArgs } from 'node:util';
import { SearchUsersDocument } from '../generated/client/graphql.ts';
import { createGraphqlClient } from '../generated/client/graphql-client.ts';
import { signToken } from '../src/auth/jwt.ts';
import { resolveJwtSecret } from '../src/auth/secret.ts';
import { Failure, operator, runCommand, type Operator } from './operator.ts';

const USAGE = 'usage: npm run --silent token -- (--sub <userId> | --username <name>) [--role ADMIN]... [--expires-in seconds]';

async function userIdOf({ config, fetch, call }: Operator, username: string): Promise<string> {
  const graphql = createGraphqlClient({ url: `${config.baseUrl}/graphql`, fetch });
  const { searchUsers } = await call(() => graphql.request(SearchUsersDocument, { query: username, limit: 5 }));
  const user = searchUsers.find((u) => u.username === username.toLowerCase() || u.username === username);
  if (!user) throw new Failure(`no active user named ${username} at ${config.baseUrl} (\`npm run seed\` creates alice, bob and carol)`);
  return user.id;
}

/**
 * The command's main: the signed token, or a Failure. `args` and `env` are the process's own when it
 * runs as `npm run token` (below); a test passes its own.
 */
export async function token(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  let values: { sub?: string; username?: string; role?: string[]; 'expires-in'?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        sub: { type: 'string' },
        username: { type: 'string' },
        role: { type: 'string', multiple: true },
        'expires-in': { type: 'string' },
      },
    }));
  } catch (error) {
    throw new Failure(`${(error as Error).message}; ${USAGE}`);
  }
  if (Boolean(values.sub) === Boolean(values.username)) throw new Failure(USAGE);
  const expiresIn = values['expires-in'] ? Number(values['expires-in']) : 3600;
  if (!Number.isInteger(expiresIn) || expiresIn <= 0) throw new Failure('--expires-in must be a positive whole number of seconds');
  const op = operator(env);
  const sub = values.sub ?? (await userIdOf(op, values.username!));
  return signToken(resolveJwtSecret(op.config), { sub, roles: values.role ?? [], expiresIn });
}

// Run as `npm run token`, not when a test imports the function.
if (process.argv[1]?.endsWith('scripts/token.ts')) await runCommand(() => token(process.argv.slice(2), process.env));
