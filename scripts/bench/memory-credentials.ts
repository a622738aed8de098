/**
 * The credential store of the auth section's "store in memory" server: what the database holds,
 * loaded once at start, answered from Maps with the same hashing, so the server differs from ours
 * only by the per-request query. test/bench/harness.test.ts checks that it answers as the database.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { CredentialStore, SessionCredential, SubjectStatus } from '../../src/auth/credentials.ts';
import type { Database } from '../../src/db/database.ts';
import { rolesNow } from '../../src/identity/sign-in/sessions.repository.ts';

export async function memoryCredentialStore(db: Database): Promise<CredentialStore> {
  const sessions = new Map<string, SessionCredential>();
  const rows = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.user_id', 's.tenant_id', rolesNow(sql`s.roles`, sql`u.id`).as('roles'), 's.expires_at', 's.token_sha256'])
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('u.active', '=', true)
    .execute();
  for (const r of rows) {
    sessions.set(r.token_sha256, { sessionId: r.id, userId: r.user_id, tenantId: r.tenant_id, roles: r.roles, expiresAt: r.expires_at });
  }
  const subjects = new Map<string, SubjectStatus>();
  for (const d of await db.selectFrom('deleted_users').select('user_id').execute()) subjects.set(d.user_id, { kind: 'deleted' });
  const users = await db
    .selectFrom('users as u')
    .select(['u.id', 'u.tenant_id', 'u.active', rolesNow(sql`u.roles`, sql`u.id`).as('roles')])
    .execute();
  for (const u of users) {
    subjects.set(u.id, u.active ? { kind: 'active', tenantId: u.tenant_id, roles: u.roles } : { kind: 'inactive' });
  }
  return {
    sessionForToken: async (token) => {
      const found = sessions.get(createHash('sha256').update(token).digest('hex'));
      return found && found.expiresAt.getTime() > Date.now() ? found : null;
    },
    subjectStatus: async (userId) => subjects.get(userId) ?? { kind: 'unknown' },
  };
}
