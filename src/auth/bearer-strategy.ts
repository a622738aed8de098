/**
 * Passport strategy for `Authorization: Bearer <token>`, a session token or a JWT (src/auth/credentials.ts).
 * A request without the header passes as anonymous; a present but bad or revoked token fails (401),
 * so clients learn their credential is no longer good.
 */
import type { IncomingMessage } from 'node:http';
import { Strategy } from 'passport-strategy';
import { InvalidTokenError, type CredentialVerifier } from './credentials.ts';

const BEARER = 'bearer';

/** The token of an `Authorization: Bearer <token>` value, or null when the value has another shape. */
export function bearerToken(header: string): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

export class BearerStrategy extends Strategy {
  name = BEARER;

  constructor(private readonly verifier: CredentialVerifier) {
    super();
  }

  override authenticate(req: IncomingMessage): void {
    const header = req.headers.authorization;
    if (!header) return this.pass();
    const token = bearerToken(header);
    if (!token) return this.fail({ message: 'Authorization header must be "Bearer <token>"' }, 401);
    this.verifier.verify(token).then(
      ({ principal }) => this.success(principal),
      (error: unknown) => (error instanceof InvalidTokenError ? this.fail({ message: error.message }, 401) : this.error(error as Error)),
    );
  }
}
