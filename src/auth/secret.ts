/**
 * Server secrets (the JWT signing secret, the key of stored client secrets). In production each must
 * be configured; elsewhere one is generated once and kept under DATA_DIR, so tokens minted by
 * `npm run token` and secrets encrypted at rest keep working across restarts.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

function resolveSecret(configured: string | null, dataDir: string, fileName: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, fileName);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // not created yet
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  // `wx` makes concurrent first starts agree on one secret: the loser reads the winner's file.
  try {
    fs.writeFileSync(file, `${secret}\n`, { flag: 'wx', mode: 0o600 });
    return secret;
  } catch {
    return fs.readFileSync(file, 'utf8').trim();
  }
}

export function resolveJwtSecret(config: Pick<Config, 'authJwtSecret' | 'dataDir'>): string {
  return resolveSecret(config.authJwtSecret, config.dataDir, 'jwt-secret');
}

export function resolveSecretsKey(config: Pick<Config, 'secretsKey' | 'dataDir'>): string {
  return resolveSecret(config.secretsKey, config.dataDir, 'secrets-key');
}
