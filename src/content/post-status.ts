/**
 * The post lifecycle (documented on PostStatus in schema/posts.graphql): which status change each
 * operation performs and from where. Anything else is an INVALID_STATE_TRANSITION.
 */
import { AppError } from '../errors.ts';

export type PostStatus = 'DRAFT' | 'PUBLISHED' | 'ARCHIVED';
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
