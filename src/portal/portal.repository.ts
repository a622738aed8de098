/**
 * The portal's tables (migration 0024): `portal_links` and `portal_sessions`, found by the SHA-256
 * of their tokens. A link is taken once (`takeLink`: one statement, so two instances cannot both
 * open a session with it); a session is live until its absolute end, its idle end or its close.
 */
import { sql } from 'kysely';
import type { PortalLinksRow, PortalSessionsRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';

export type PortalLinkRow = PortalLinksRow;
export type PortalSessionRow = PortalSessionsRow;

export function insertLink(
  db: Executor,
  link: { tenant_id: string; intents: readonly string[]; token_sha256: string; created_by: string; ttlS: number },
): Promise<PortalLinkRow> {
  return db
    .insertInto('portal_links')
    .values({
      tenant_id: link.tenant_id,
      intents: sql<string[]>`${[...link.intents]}::text[]`,
      token_sha256: link.token_sha256,
      created_by: link.created_by,
      expires_at: sql<Date>`now() + make_interval(secs => ${link.ttlS})`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Marks the link of `digest` used, if it is unused and unexpired, and returns it; otherwise
 * returns what stands in the way (`used`, `expired`) or undefined for an unknown token.
 */
export async function takeLink(db: Executor, digest: string): Promise<PortalLinkRow | 'used' | 'expired' | undefined> {
  const taken = await db
    .updateTable('portal_links')
    .set({ used_at: sql<Date>`now()` })
    .where('token_sha256', '=', digest)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returningAll()
    .executeTakeFirst();
  if (taken) return taken;
  const found = await db.selectFrom('portal_links').select(['used_at']).where('token_sha256', '=', digest).executeTakeFirst();
  if (!found) return undefined;
  return found.used_at ? 'used' : 'expired';
}

export function insertSession(
  db: Executor,
  session: { tenant_id: string; link_id: string; intents: readonly string[]; token_sha256: string; ttlS: number },
): Promise<PortalSessionRow> {
  return db
    .insertInto('portal_sessions')
    .values({
      tenant_id: session.tenant_id,
      link_id: session.link_id,
      intents: sql<string[]>`${[...session.intents]}::text[]`,
      token_sha256: session.token_sha256,
      expires_at: sql<Date>`now() + make_interval(secs => ${session.ttlS})`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The live session of `digest` (not closed, before its end, used within `idleS`), its last use
 * moved to now when it is `touchAfterS` old or more (a write per request would be a write per click).
 */
export async function findLiveSession(
  db: Executor,
  digest: string,
  idleS: number,
  touchAfterS: number,
): Promise<PortalSessionRow | undefined> {
  const live = await db
    .selectFrom('portal_sessions')
    .selectAll()
    .where('token_sha256', '=', digest)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .where('last_seen_at', '>', sql<Date>`now() - make_interval(secs => ${idleS})`)
    .executeTakeFirst();
  if (live && Date.now() - live.last_seen_at.getTime() >= touchAfterS * 1000) {
    await db
      .updateTable('portal_sessions')
      .set({ last_seen_at: sql<Date>`now()` })
      .where('id', '=', live.id)
      .execute();
  }
  return live;
}

export async function endSession(db: Executor, id: string): Promise<boolean> {
  const ended = await db
    .updateTable('portal_sessions')
    .set({ ended_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return ended.numUpdatedRows > 0n;
}

export function findSessionById(db: Executor, id: string): Promise<PortalSessionRow | undefined> {
  return db.selectFrom('portal_sessions').selectAll().where('id', '=', id).where('ended_at', 'is', null).executeTakeFirst();
}
