/**
 * The JWT signing secret. In production it must be configured; elsewhere one is generated once and kept
 * under DATA_DIR, so tokens minted by `npm run token` keep working across restarts.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

export function resolveJwtSecret(config: Pick<Config, 'authJwtSecret' | 'dataDir'>): string {
  if (config.authJwtSecret) return config.authJwtSecret;
  const file = path.join(config.dataDir, 'jwt-secret');
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // not created yet
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  // `wx` makes concurrent first starts agree on one secret: the loser reads the winner's file.
  try {
    fs.writeFileSync(file, `${secret}\n`, { flag: 'wx', mode: 0o600 });
    return secret;
  } catch {
    return fs.readFileSync(file, 'utf8').trim();
  }
}
