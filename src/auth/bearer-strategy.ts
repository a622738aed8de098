/**
 * Passport strategy for `Authorization: Bearer <JWT>`. A request without the header passes as
 * anonymous; a present but bad token fails (401), so clients learn their token is wrong.
 */
import type { IncomingMessage } from 'node:http';
import { Strategy } from 'passport-strategy';
import { InvalidTokenError, verifyToken } from './jwt.ts';

export const BEARER_JWT = 'bearer-jwt';

export class BearerJwtStrategy extends Strategy {
  name = BEARER_JWT;

  constructor(private readonly secret: string) {
    super();
  }

  override authenticate(req: IncomingMessage): void {
    const header = req.headers.authorization;
    if (!header) return this.pass();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return this.fail({ message: 'Authorization header must be "Bearer <token>"' }, 401);
    verifyToken(this.secret, match[1]!).then(
      (principal) => this.success(principal),
      (error: unknown) => (error instanceof InvalidTokenError ? this.fail({ message: error.message }, 401) : this.error(error as Error)),
    );
  }
}
