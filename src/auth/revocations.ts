/**
 * The `credential_revoked` notifications of migration 0010's triggers: a user deactivated or deleted
 * (`{userId}`), or a session revoked or deleted (`{userId, sessionId}`). Every instance listens and
 * closes the WebSocket connections the revoked credential opened.
 */
export const CREDENTIAL_REVOKED_CHANNEL = 'credential_revoked';

export interface CredentialRevoked {
  userId: string;
  /** Present when one session was revoked; absent when the whole user was. */
  sessionId?: string;
}

export function parseCredentialRevoked(payload: string): CredentialRevoked | null {
  try {
    const value = JSON.parse(payload) as { userId?: unknown; sessionId?: unknown };
    if (typeof value.userId !== 'string') return null;
    return typeof value.sessionId === 'string' ? { userId: value.userId, sessionId: value.sessionId } : { userId: value.userId };
  } catch {
    return null;
  }
}
