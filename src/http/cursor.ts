/**
 * Opaque, tamper-proof list cursors: `<base64url(JSON)>.<base64url(HMAC-SHA256)>`.
 *
 * The JSON holds only ordering values; the MAC covers it together with the scope (the endpoint and
 * the parameter the cursor is meant for, e.g. `feed.before`) and the caller. So a modified, truncated
 * or re-encoded cursor, one issued by another endpoint, for another caller or under another secret
 * all fail verification and become a 400 `/problems/invalid-cursor` instead of a wrong page or a 500.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.ts';

const FORMAT = /^[A-Za-z0-9_-]{1,900}\.[A-Za-z0-9_-]{43}$/;
const VERSION = 'v1';

/**
 * The cursor key is derived from the JWT secret with a label rather than reusing it directly: one
 * configured secret, two independent keys, and a cursor MAC can never be replayed as a token MAC.
 */
export function deriveCursorSecret(jwtSecret: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', jwtSecret, 'schemaforge', 'list-cursor/v1', 32));
}

/** Who the cursor was issued to: `anonymous` or the user id. */
export function callerKey(userId: string | null): string {
  return userId === null ? 'anonymous' : `user:${userId}`;
}

function invalidCursor(
  parameter: string,
  message = 'The cursor is invalid, was modified, or was issued for another list or caller',
): AppError {
  return new AppError('VALIDATION', message, 'INVALID_CURSOR', [
    { field: [parameter], source: 'parameter', message: 'is not a cursor issued for this request' },
  ]);
}

export class CursorCodec {
  constructor(private readonly secret: Uint8Array) {}

  private sign(scope: string, caller: string, body: string): string {
    // Length-prefixing each part keeps (scope, caller) pairs from colliding by concatenation.
    const message = [VERSION, scope, caller, body].map((part) => `${part.length}:${part}`).join('|');
    return createHmac('sha256', this.secret).update(message).digest('base64url');
  }

  encode(scope: string, caller: string, payload: object): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.sign(scope, caller, body)}`;
  }

  /**
   * Verifies and parses a cursor; `parameter` names the parameter in the error (`after`). The
   * payload is checked by `accept` even though it was signed by us: a guard against our own past
   * formats rather than against clients.
   */
  decode<T>(scope: string, caller: string, token: string, parameter: string, accept: (value: unknown) => value is T): T {
    if (!FORMAT.test(token)) throw invalidCursor(parameter);
    const [body, mac] = token.split('.') as [string, string];
    // Compared as text, not decoded bytes: base64url ignores the last character's spare bits, so
    // decoding would accept a few altered spellings of the same signature.
    const given = Buffer.from(mac);
    const expected = Buffer.from(this.sign(scope, caller, body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor(parameter);
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursor(parameter);
    }
    if (!accept(value)) throw invalidCursor(parameter);
    return value;
  }
}
