/**
 * Server-side sessions: what single sign-on issues after a successful sign-in, sent to the client as
 * a cookie or a bearer token. The token is a long random value returned once by `create` and stored
 * only as its SHA-256 (as SCIM tokens are: 256 random bits leave nothing to guess from a digest).
 * The service is also the credential store of src/auth/credentials.ts: it answers, with one indexed
 * query, whether a session token or a JWT's subject is still good, and with which credential epoch,
 * so src/auth/credential-cache.ts may keep the answer while the epoch stands (decision 151).
 *
 * Revocation reaches open WebSocket connections through the database: the triggers of migration 0010
 * notify `credential_revoked` whenever a session is revoked or deleted and whenever a user is
 * deactivated or deleted, by this service or by any plain UPDATE or DELETE (decision 63).
 */
import { createHash, randomBytes } from 'node:crypto';
import { SESSION_TOKEN_PREFIX, SESSION_TOKEN_SHAPE, type SubjectStatus } from '../../auth/credentials.ts';
import type { Epoched, EpochedCredentialStore, EpochedSession } from '../../auth/credential-cache.ts';
import type { UsersRow } from '../../../generated/db/types.ts';
import { requireUser } from '../../users/users.repository.ts';
import type { Database } from '../../db/database.ts';
import { notFound, validationFailed } from '../../errors.ts';
import * as repo from './sessions.repository.ts';

export type { SessionRecord } from './sessions.repository.ts';

/** `last_seen_at` is kept to the minute: one write per session per minute, not one per request. */
const LAST_SEEN_RESOLUTION_S = 60;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IssuedSession {
  record: repo.SessionRecord;
  /** The bearer value; not stored, so this is the only time it exists outside the client. */
  token: string;
}

export interface SessionOptions {
  roles?: readonly string[];
  /** How the user signed in: `api` for sessions an operator creates directly. */
  authMethod?: 'api' | 'local' | 'saml' | 'oidc';
  /** The provider's own session id (OIDC `sid`, SAML SessionIndex), which back-channel logout names. */
  idpSessionId?: string | null;
  /** The provider's subject (OIDC `sub`, SAML NameID). */
  idpSubject?: string | null;
  /** The OIDC ID token sealed by src/identity/oidc/oidc-sign-on.ts, for the end-session `id_token_hint`. */
  idpIdTokenSealed?: string | null;
}

const digestOf = (token: string) => createHash('sha256').update(token).digest('hex');

const sessionNotFound = (id: string) => notFound(`Session not found: ${id}`, 'SESSION_NOT_FOUND');

export class SessionsService implements EpochedCredentialStore {
  readonly lastSeenResolutionMs = LAST_SEEN_RESOLUTION_S * 1000;

  constructor(
    private readonly db: Database,
    /** AUTH_SESSION_TTL_S: how long a session lasts from its creation. */
    private readonly ttlSeconds: number,
  ) {}

  /**
   * A new session of an active user, in the user's tenant, with the roles sign-in granted (the
   * provider's groups mapped at this sign-in); the roles of its SCIM groups are added at each request.
   */
  async create(userId: string, options: SessionOptions = {}): Promise<IssuedSession> {
    return this.createFor(await requireUser(this.db, userId), options);
  }

  /** A new session of a user the caller has just read (sign-in), saving the look-up `create` makes. */
  async createFor(user: Pick<UsersRow, 'id' | 'tenant_id' | 'active'>, options: SessionOptions = {}): Promise<IssuedSession> {
    if (!user.active) throw validationFailed([{ field: ['userId'], message: 'the user is deactivated' }], 'The user is deactivated');
    const token = `${SESSION_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const record = await repo.insertSession(this.db, {
      user_id: user.id,
      tenant_id: user.tenant_id,
      token_sha256: digestOf(token),
      roles: [...new Set(options.roles ?? [])],
      auth_method: options.authMethod ?? 'api',
      idp_session_id: options.idpSessionId ?? null,
      idp_subject: options.idpSubject ?? null,
      idp_id_token_sealed: options.idpIdTokenSealed ?? null,
      ttlSeconds: this.ttlSeconds,
    });
    return { record, token };
  }

  async get(id: string): Promise<repo.SessionRecord> {
    const session = UUID.test(id) ? await repo.findSession(this.db, id) : undefined;
    if (!session) throw sessionNotFound(id);
    return session;
  }

  /** Revoking a revoked session again succeeds and keeps its first revocation time. */
  async revoke(id: string): Promise<void> {
    if (!UUID.test(id) || !(await repo.revokeSession(this.db, id))) throw sessionNotFound(id);
  }

  /** Revokes the live sessions a provider's back-channel logout names (its `sid`, else its `sub`); how many. */

  /**
   * The session of a session token with the credential epoch it was read at (decision 151), or null
   * when it is unknown, revoked or expired, or its user inactive. Records the use to the minute.
   */
  async readSession(token: string): Promise<EpochedSession | null> {
    if (!SESSION_TOKEN_SHAPE.test(token)) return null;
    const found = await repo.findValidSession(this.db, digestOf(token));
    if (!found) return null;
    let lastSeenAt = found.last_seen_at;
    if (lastSeenAt === null || Date.now() - lastSeenAt.getTime() >= this.lastSeenResolutionMs) {
      await repo.touchSession(this.db, found.id, LAST_SEEN_RESOLUTION_S);
      lastSeenAt = new Date();
    }
    return {
      value: { sessionId: found.id, userId: found.user_id, tenantId: found.tenant_id, roles: found.roles, expiresAt: found.expires_at },
      epoch: found.epoch,
      lastSeenAt,
    };
  }

  /** What the store knows of a JWT's subject, with the credential epoch it was read at. */
  async readSubject(userId: string): Promise<Epoched<SubjectStatus>> {
    const row = await repo.findSubject(this.db, userId);
    let value: SubjectStatus;
    if (row.tenant_id !== null) value = row.active ? { kind: 'active', tenantId: row.tenant_id, roles: row.roles } : { kind: 'inactive' };
    else value = row.deleted ? { kind: 'deleted' } : { kind: 'unknown' };
    return { value, epoch: row.epoch };
  }

  credentialEpoch(): Promise<number> {
    return repo.credentialEpoch(this.db);
  }

  /** Records a use of a session answered without reading it (a kept answer); concurrent calls write once. */
  async touch(sessionId: string): Promise<void> {
    await repo.touchSession(this.db, sessionId, LAST_SEEN_RESOLUTION_S);
  }
}
