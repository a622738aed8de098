import { sql } from 'kysely';
import type { NewSessionsRow, SessionsRow } from '../../../generated/db/types.ts';
import { preparedName } from '../../db/prepared-statements.ts';
import type { Executor } from '../../db/transaction.ts';

/** A session as stored and listed: its digest never leaves this module. */
export type SessionRecord = Omit<SessionsRow, 'token_sha256'>;

const LISTED = [
  'id',
  'user_id',
  'tenant_id',
  'roles',
  'auth_method',
  'idp_session_id',
  'idp_subject',
  'idp_id_token_sealed',
  'created_at',
  'expires_at',
  'last_seen_at',
  'revoked_at',
] as const;

export function insertSession(
  db: Executor,
  // `expires_at` is the database clock's now plus `ttlSeconds`, never the caller's clock.
  session: Omit<NewSessionsRow, 'expires_at'> & { ttlSeconds: number },
): Promise<SessionRecord> {
  const { ttlSeconds, ...row } = session;
  return db
    .insertInto('sessions')
    .values({ ...row, expires_at: sql<Date>`now() + make_interval(secs => ${ttlSeconds})` })
    .returning([...LISTED])
    .executeTakeFirstOrThrow();
}

export function findSession(db: Executor, id: string): Promise<SessionRecord | undefined> {
  return db
    .selectFrom('sessions')
    .select([...LISTED])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * `granted` (a text[] expression) with the roles the user's tenant maps from the SCIM groups the user
 * (`userId`, an expression) is a member of now, sorted and without repeats: roles are read at every
 * request, so a group change holds from the next request on, on every instance.
 */
export function rolesNow(granted: ReturnType<typeof sql>, userId: ReturnType<typeof sql>) {
  return sql<string[]>`array(
    select role from unnest(${granted}) as role
    union
    select p.role_mapping ->> g.display_name
      from group_members m
      join groups g on g.id = m.group_id
      join identity_providers p on p.tenant_id = g.tenant_id
      where m.user_id = ${userId} and p.role_mapping ? g.display_name
    order by 1)`;
}

/**
 * The credential queries run for every authenticated request: named statements on PostgreSQL
 * (src/db/prepared-statements.ts), each answering the credential epoch (migration 0019) of its own
 * snapshot, under which its answer may be kept (decision 151).
 */
type ValidSession = Pick<SessionsRow, 'id' | 'user_id' | 'tenant_id' | 'roles' | 'expires_at' | 'last_seen_at'> & { epoch: number };

/**
 * The session of a token digest: the unique digest index, then the user's primary key (and its
 * group memberships). Revoked and expired sessions and inactive users yield nothing. `roles`: the
 * session's, and its tenant's mapping of the user's groups now.
 */
export async function findValidSession(db: Executor, digest: string): Promise<ValidSession | undefined> {
  const { rows } = await sql<ValidSession>`${sql.raw(preparedName('credential-session'))}
    select s.id, s.user_id, s.tenant_id, s.expires_at, s.last_seen_at,
           ${rolesNow(sql`s.roles`, sql`u.id`)} as roles, (select epoch from credential_epoch) as epoch
      from sessions s join users u on u.id = s.user_id
     where s.token_sha256 = ${digest} and s.revoked_at is null and s.expires_at > now() and u.active`.execute(db);
  return rows[0];
}

type Subject = { tenant_id: string | null; active: boolean | null; deleted: boolean; roles: string[]; epoch: number };

/**
 * A JWT's subject, always one row: the user of that id (its primary key) with the roles its tenant
 * grants it now (stored and group roles), and whether the id is recorded as deleted. No user and no
 * deletion: the id was never a stored user's.
 */
export async function findSubject(db: Executor, userId: string): Promise<Subject> {
  const { rows } = await sql<Subject>`${sql.raw(preparedName('credential-subject'))}
    select u.tenant_id, u.active, d.user_id is not null as deleted, ${rolesNow(sql`u.roles`, sql`u.id`)} as roles, e.epoch
      from credential_epoch e
      left join users u on u.id = ${userId}
      left join deleted_users d on d.user_id = ${userId}`.execute(db);
  return rows[0]!;
}

/** The credential epoch now: the fence a kept credential answer is checked against. */
export async function credentialEpoch(db: Executor): Promise<number> {
  const { rows } = await sql<{ epoch: number }>`${sql.raw(preparedName('credential-epoch'))} select epoch from credential_epoch`.execute(
    db,
  );
  return rows[0]!.epoch;
}

/** Records a use, unless one was recorded within `resolutionSeconds` (concurrent requests write once). */
export async function touchSession(db: Executor, id: string, resolutionSeconds: number): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', sql<Date>`now() - make_interval(secs => ${resolutionSeconds})`)]),
    )
    .execute();
}

/** Marks the session revoked, keeping the first revocation time; undefined when there is no such session. */
export function revokeSession(db: Executor, id: string): Promise<{ id: string } | undefined> {
  return db
    .updateTable('sessions')
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
}

/** Revokes every live session of the user; how many were live. */
/** Whether the user ever held a session (revoked and expired ones included): whether it has been used. */
export async function hasHeldSession(db: Executor, userId: string): Promise<boolean> {
  return (await db.selectFrom('sessions').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst()) !== undefined;
}

export async function revokeSessionsOfUser(db: Executor, userId: string): Promise<number> {
  const result = await db
    .updateTable('sessions')
    .set({ revoked_at: sql<Date>`now()` })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Revokes the live sessions of a tenant a provider's session id (or, without one, its subject) names. */
export async function revokeSessionsByProvider(db: Executor, tenantId: string, by: { sid?: string; sub?: string }): Promise<number> {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at: sql<Date>`now()` })
    .where('tenant_id', '=', tenantId)
    .where('revoked_at', 'is', null);
  if (by.sid) query = query.where('idp_session_id', '=', by.sid);
  if (by.sub) query = query.where('idp_subject', '=', by.sub);
  if (!by.sid && !by.sub) return 0;
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
