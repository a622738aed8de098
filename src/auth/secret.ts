/**
 * Server secrets (the JWT signing secret, the key of stored secrets). Configured ones are used as
 * they are (src/config.ts requires them of a production deployment on PostgreSQL); otherwise one is
 * generated once and kept under DATA_DIR, so tokens minted by `npm run token` and secrets sealed at
 * rest keep working across restarts. A file that holds no usable secret (empty, truncated) stops the
 * start instead of being used: a short key would protect nothing, and replacing it would silently
 * orphan everything sealed with the old one.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

const MIN_LENGTH = 32;

export class UnusableSecretFileError extends Error {}

function readSecretFile(file: string, variable: string): string | null {
  let existing: string;
  try {
    existing = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
  if (existing.length < MIN_LENGTH) {
    throw new UnusableSecretFileError(
      `${file} holds no usable secret (fewer than ${MIN_LENGTH} characters); set ${variable}, or remove the file to generate a new one`,
    );
  }
  return existing;
}

function resolveSecret(configured: string | null, dataDir: string, fileName: string, variable: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, fileName);
  const existing = readSecretFile(file, variable);
  if (existing) return existing;
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  // `wx` makes concurrent first starts agree on one secret: the loser reads the winner's file.
  try {
    fs.writeFileSync(file, `${secret}\n`, { flag: 'wx', mode: 0o600 });
    return secret;
  } catch {
    const written = readSecretFile(file, variable);
    if (!written) throw new UnusableSecretFileError(`${file} could not be written or read`);
    return written;
  }
}

export function resolveJwtSecret(config: Pick<Config, 'authJwtSecret' | 'dataDir'>): string {
  return resolveSecret(config.authJwtSecret, config.dataDir, 'jwt-secret', 'AUTH_JWT_SECRET');
}

export function resolveSecretsKey(config: Pick<Config, 'secretsKey' | 'dataDir'>): string {
  return resolveSecret(config.secretsKey, config.dataDir, 'secrets-key', 'SECRETS_KEY');
}
