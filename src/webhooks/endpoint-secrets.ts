/**
 * Webhook signing secrets are sealed at rest (src/auth/secret-box.ts) under SECRETS_KEY, bound to
 * their endpoint, like identity provider client secrets: a copy of the database alone cannot sign
 * a delivery. Rows written before sealing held them in plain text; each process seals what it finds
 * of those when it starts, and reads them as they are until then. Which is which is told by form,
 * never by whether a value opens: a sealed secret that does not open (SECRETS_KEY is not the key it
 * was sealed under) is an error, not a plain secret, so it is neither used as a key nor sealed again.
 */
import type { SecretBox } from '../auth/secret-box.ts';
import type { Executor } from '../db/transaction.ts';

const context = (endpointId: string) => `webhook-endpoint:${endpointId}`;

export function sealEndpointSecret(box: SecretBox, endpointId: string, secret: string): string {
  return box.seal(secret, context(endpointId));
}

/** The form SecretBox.seal writes: `v1`, a 12-byte IV and a 16-byte tag (base64url), the ciphertext. */
const SEALED = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/;

/**
 * The secret of a stored value: a sealed one opened (throws when it was sealed under another
 * SECRETS_KEY), a plain one from before sealing as it is.
 */
export function openEndpointSecret(box: SecretBox, endpointId: string, stored: string): string {
  return SEALED.test(stored) ? box.open(stored, context(endpointId)) : stored;
}

const opens = (box: SecretBox, endpointId: string, stored: string): boolean => {
  try {
    openEndpointSecret(box, endpointId, stored);
    return true;
  } catch {
    return false;
  }
};

/**
 * Seals the secrets of rows written before sealing. `sealed`: how many rows it changed; `unopened`:
 * the endpoints whose sealed secret does not open under this SECRETS_KEY (their deliveries fail to
 * sign until the key they were sealed under is back, or the secret is rotated).
 */
export async function sealPlainSecrets(db: Executor, box: SecretBox): Promise<{ sealed: number; unopened: string[] }> {
  const rows = await db.selectFrom('webhook_endpoints').select(['id', 'secret', 'previous_secret']).execute();
  let sealed = 0;
  const unopened: string[] = [];
  for (const row of rows) {
    if (SEALED.test(row.secret) && !opens(box, row.id, row.secret)) unopened.push(row.id);
    const seal = (value: string) => (SEALED.test(value) ? value : sealEndpointSecret(box, row.id, value));
    const secret = seal(row.secret);
    const previous = row.previous_secret === null ? null : seal(row.previous_secret);
    if (secret === row.secret && previous === row.previous_secret) continue;
    // Only if nobody rotated it meanwhile: a concurrent start seals the same row once.
    await db
      .updateTable('webhook_endpoints')
      .set({ secret, previous_secret: previous })
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .execute();
    sealed++;
  }
  return { sealed, unopened };
}

/** The start-up line for `count` endpoints whose secret does not open (SECRETS_KEY changed?). */
export function unopenedSecretsWarning(count: number): string {
  return `${count} webhook endpoint secret(s) were sealed under another SECRETS_KEY: their deliveries fail (error "signing") until that key is configured again or each secret is rotated`;
}
