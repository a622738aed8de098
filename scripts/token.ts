/**
 * `npm run --silent token -- --sub <userId> [--role ADMIN]... [--expires-in 3600]`: prints a bearer JWT
 * signed with the configured secret (AUTH_JWT_SECRET, or the one generated under DATA_DIR).
 */
import { parseArgs } from 'node:util';
import { signToken } from '../src/auth/jwt.ts';
import { resolveJwtSecret } from '../src/auth/secret.ts';
import { ConfigError, loadConfig } from '../src/config.ts';

try {
  const { values } = parseArgs({
    options: {
      sub: { type: 'string' },
      role: { type: 'string', multiple: true },
      'expires-in': { type: 'string' },
    },
  });
  if (!values.sub) throw new Error('usage: npm run --silent token -- --sub <userId> [--role ADMIN] [--expires-in seconds]');
  const expiresIn = values['expires-in'] ? Number(values['expires-in']) : 3600;
  if (!Number.isInteger(expiresIn) || expiresIn <= 0) throw new Error('--expires-in must be a positive whole number of seconds');
  const secret = resolveJwtSecret(loadConfig());
  process.stdout.write(`${await signToken(secret, { sub: values.sub, roles: values.role ?? [], expiresIn })}\n`);
} catch (error) {
  console.error(`error: ${error instanceof ConfigError ? `invalid configuration: ${error.message}` : (error as Error).message}`);
  process.exit(1);
}
