/**
 * The post lifecycle (documented on PostStatus in schema/posts.graphql): which status change each
 * operation performs and from where. Anything else is an INVALID_STATE_TRANSITION.
 */
import type { PostStatus } from '../../generated/graphql/types.ts';
import { AppError } from '../errors.ts';

/** Generated from the PostStatus enum of schema/posts.graphql, the one definition of the statuses. */
export type { PostStatus };

/** Every status, as a value. A Record, so a status added to the schema fails to compile until listed. */
const STATUS_SET: Record<PostStatus, true> = { DRAFT: true, PUBLISHED: true, ARCHIVED: true };
export const POST_STATUSES = Object.keys(STATUS_SET) as PostStatus[];

/** A stored status (the column is text) as the enum; anything else is a broken row. */
export function toPostStatus(value: string): PostStatus {
  if (!Object.hasOwn(STATUS_SET, value)) throw new Error(`unknown post status in the database: ${value}`);
  return value as PostStatus;
}
export type PostTransition = 'publish' | 'archive' | 'restore';

const TRANSITIONS: Record<PostTransition, { from: readonly PostStatus[]; to: PostStatus }> = {
  publish: { from: ['DRAFT'], to: 'PUBLISHED' },
  archive: { from: ['DRAFT', 'PUBLISHED'], to: 'ARCHIVED' },
  restore: { from: ['ARCHIVED'], to: 'DRAFT' },
};

export const invalidTransition = (from: string, to: string) =>
  new AppError('VALIDATION', `Cannot change post status from ${from} to ${to}`, 'INVALID_STATE_TRANSITION');

/** The status `transition` leads to from `current`, or a BAD_REQUEST when it is not allowed. */
export function nextStatus(current: string, transition: PostTransition): PostStatus {
  const rule = TRANSITIONS[transition];
  if (!rule.from.includes(current as PostStatus)) throw invalidTransition(current, rule.to);
  return rule.to;
}
