/**
 * Post positions as signed cursors. Each cursor is bound to its scope (`posts.after`, `feed.before`,
 * `feed.after`) and to the caller, so a cursor cannot be replayed on another list, in the other feed
 * direction, or by another user. The `posts.after` scope serves both `/posts` parameters that take a
 * cursor, `cursor` (standard form) and `after` (cursor form): they name the same position in the same
 * order, and the parameter only picks the envelope. The scope keeps its first name so cursors issued
 * before `cursor` existed stay valid.
 */
import { callerKey, type CursorCodec } from '../http/cursor.ts';
import type { PostPosition } from './post-lists.service.ts';

type CursorScope = 'posts.after' | 'feed.before' | 'feed.after';

/** Encodes both created_at (exact, microseconds) and id, so the cursor is stable under concurrent inserts. */
interface PositionPayload {
  c: string;
  i: number;
}

const EXACT_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function isPositionPayload(value: unknown): value is PositionPayload {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    Object.keys(v).length === 2 &&
    typeof v.c === 'string' &&
    EXACT_UTC.test(v.c) &&
    typeof v.i === 'number' &&
    Number.isInteger(v.i) &&
    v.i >= 1 &&
    v.i <= 2_147_483_647
  );
}

export class PostCursors {
  constructor(private readonly codec: CursorCodec) {}

  encode(scope: CursorScope, viewerId: string | null, position: PostPosition): string {
    const payload: PositionPayload = { c: position.createdAt, i: position.id };
    return this.codec.encode(scope, callerKey(viewerId), payload);
  }

  /** Throws an INVALID_CURSOR error naming the query parameter `parameter`, by default the scope's own. */
  decode(scope: CursorScope, viewerId: string | null, token: string, parameter = scope.split('.')[1]!): PostPosition {
    const { c, i } = this.codec.decode(scope, callerKey(viewerId), token, parameter, isPositionPayload);
    return { createdAt: c, id: i };
  }
}
