/**
 * Verification of a bearer credential, the same for REST, GraphQL over HTTP and the WebSocket's
 * `connection_init`: a session token (recognised by its prefix, so never mistaken for a JWT) or an
 * HS256 JWT. Every credential that names a stored user is checked against the database on every use
 * (the store's answer, kept only while the database's credential epoch shows nothing changed:
 * src/auth/credential-cache.ts), so deactivating or deleting the user, removing a role, or revoking
 * the session refuses the very next request on every instance (decisions 63 and 151).
 */
import { InvalidTokenError, verifyTokenClaims } from './jwt.ts';
import { scopedRoles, type Principal } from './principal.ts';

export { InvalidTokenError } from './jwt.ts';

/** Session tokens start with this; the rest is 32 random bytes in base64url (43 characters). */
export const SESSION_TOKEN_PREFIX = 'sfsess_';
export const SESSION_TOKEN_SHAPE = /^sfsess_[A-Za-z0-9_-]{43}$/;

/** A valid session as the store finds it (not revoked, not expired, its user active). */
export interface SessionCredential {
  sessionId: string;
  userId: string;
  tenantId: string;
  /**
   * The roles the user holds now: those its sign-in granted, and those its tenant maps from the SCIM
   * groups it is a member of now (so leaving a group takes a role away at the next request).
   */
  roles: string[];
  expiresAt: Date;
}

/** What the store knows of a JWT's subject; `roles`: what its tenant grants it now (stored and group roles). */
export type SubjectStatus =
  | { kind: 'active'; tenantId: string; roles: string[] }
  | { kind: 'inactive' }
  | { kind: 'deleted' }
  | { kind: 'unknown' };

export interface CredentialStore {
  /** The session of a well-formed session token, or null when it is unknown, revoked or expired, or its user inactive. */
  sessionForToken(token: string): Promise<SessionCredential | null>;
  subjectStatus(userId: string): Promise<SubjectStatus>;
}

export interface VerifiedCredential {
  principal: Principal;
  /** When the credential stops being valid (open WebSocket connections are closed then); null: never. */
  expiresAt: Date | null;
}

export class CredentialVerifier {
  constructor(
    private readonly jwtSecret: string,
    private readonly store: CredentialStore,
  ) {}

  /** The caller a bearer token stands for; InvalidTokenError when it is refused. */
  async verify(token: string): Promise<VerifiedCredential> {
    if (token.startsWith(SESSION_TOKEN_PREFIX)) {
      const session = SESSION_TOKEN_SHAPE.test(token) ? await this.store.sessionForToken(token) : null;
      if (!session) throw new InvalidTokenError('session is unknown, expired or revoked');
      return {
        principal: {
          userId: session.userId,
          ...scopedRoles(session.tenantId, session.roles),
          storedUserId: session.userId,
          tenantId: session.tenantId,
          sessionId: session.sessionId,
        },
        expiresAt: session.expiresAt,
      };
    }
    const claims = await verifyTokenClaims(this.jwtSecret, token);
    const status = await this.store.subjectStatus(claims.sub);
    if (status.kind === 'inactive') throw new InvalidTokenError('the user of this token is deactivated');
    if (status.kind === 'deleted') throw new InvalidTokenError('the user of this token no longer exists');
    // The token's roles are the operator's grant (whoever holds the JWT secret is the platform).
    const stored = status.kind === 'active' ? status : null;
    return {
      principal: {
        userId: claims.sub,
        ...scopedRoles(stored?.tenantId ?? null, stored?.roles ?? [], claims.roles),
        storedUserId: stored ? claims.sub : null,
        tenantId: stored?.tenantId ?? null,
        sessionId: null,
      },
      expiresAt: claims.expiresAt,
    };
  }
}
