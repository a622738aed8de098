/**
 * Content events for GraphQL subscriptions. They travel through PostgreSQL NOTIFY so that every
 * server instance sharing the database delivers them, and NOTIFY inside the writing transaction is
 * only delivered when it commits: a rolled-back post never reaches a subscriber.
 * The payload carries ids only (NOTIFY payloads are capped at 8000 bytes); subscribers load the rows.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/transaction.ts';

export const CONTENT_EVENTS_CHANNEL = 'content_events';

export type PostCreatedEvent = { type: 'postCreated'; postId: number; authorId: string };
export type CommentAddedEvent = { type: 'commentAdded'; commentId: number; postId: number };
export type ContentEvent = PostCreatedEvent | CommentAddedEvent;

export async function publishContentEvent(db: Executor, event: ContentEvent): Promise<void> {
  await sql`select pg_notify(${CONTENT_EVENTS_CHANNEL}, ${JSON.stringify(event)})`.execute(db);
}

/** Parses a NOTIFY payload; anything malformed (another writer on the channel) is ignored. */
export function parseContentEvent(payload: string): ContentEvent | null {
  try {
    const value = JSON.parse(payload) as Partial<Record<string, unknown>>;
    if (value.type === 'postCreated' && typeof value.postId === 'number' && typeof value.authorId === 'string') {
      return { type: 'postCreated', postId: value.postId, authorId: value.authorId };
    }
    if (value.type === 'commentAdded' && typeof value.commentId === 'number' && typeof value.postId === 'number') {
      return { type: 'commentAdded', commentId: value.commentId, postId: value.postId };
    }
  } catch {
    // not JSON
  }
  return null;
}
