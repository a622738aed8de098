/**
 * Webhook signing secrets are sealed at rest (src/auth/secret-box.ts) under SECRETS_KEY, bound to
 * their endpoint, like identity provider client secrets: a copy of the database alone cannot sign
 * a delivery. Rows written before sealing held them in plain text; each process seals what it finds
 * of those when it starts, and reads them as they are until then (a plain value never opens: its
 * authentication tag could not match).
 */
import type { SecretBox } from '../auth/secret-box.ts';
import type { Executor } from '../db/transaction.ts';

const context = (endpointId: string) => `webhook-endpoint:${endpointId}`;

export function sealEndpointSecret(box: SecretBox, endpointId: string, secret: string): string {
  return box.seal(secret, context(endpointId));
}

/** The secret of a stored (sealed, or not yet sealed) value. */
export function openEndpointSecret(box: SecretBox, endpointId: string, stored: string): string {
  try {
    return box.open(stored, context(endpointId));
  } catch {
    return stored;
  }
}

/** Seals the secrets of rows written before sealing; how many rows it changed. */
export async function sealPlainSecrets(db: Executor, box: SecretBox): Promise<number> {
  const rows = await db.selectFrom('webhook_endpoints').select(['id', 'secret', 'previous_secret']).execute();
  let sealed = 0;
  for (const row of rows) {
    const isPlain = (value: string) => openEndpointSecret(box, row.id, value) === value;
    const secret = isPlain(row.secret) ? sealEndpointSecret(box, row.id, row.secret) : row.secret;
    const previous =
      row.previous_secret !== null && isPlain(row.previous_secret)
        ? sealEndpointSecret(box, row.id, row.previous_secret)
        : row.previous_secret;
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
  return sealed;
}
