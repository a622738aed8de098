/**
 * Entity tags: `If-None-Match` evaluation (RFC 9110 §13.1.2: weak comparison for GET) and `If-Match`
 * for conditional writes (§13.1.1: strong comparison; weak for SCIM). Every tag the server issues is
 * the resource's integer version, quoted.
 */
import { VersionMismatch } from '../errors.ts';
import type { ReplyHeaders } from './openapi-routes.ts';

export function strongTag(version: string | number): string {
  return `"${version}"`;
}

/**
 * True when `If-None-Match` matches `tag`: `*`, or any listed tag equal to it once the `W/` prefixes
 * are dropped. Tags may themselves contain commas, so the header is tokenised, not split on commas.
 */
export function ifNoneMatchMatches(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = tag.replace(/^W\//, '');
  for (const m of header.matchAll(/(?:W\/)?"[^"]*"/g)) {
    if (m[0].replace(/^W\//, '') === opaque) return true;
  }
  return false;
}

const MAX_VERSION = 2_147_483_647;

/**
 * The versions an `If-Match` header accepts, for a service's compare-and-set; undefined when there is
 * no condition (header absent, or `*`, which any existing resource matches). The REST areas compare
 * strongly (RFC 9110 §13.1.1): a weak tag never matches. SCIM versions are weak tags (`W/"3"`) that
 * clients send back as `meta.version` said (RFC 7644 §3.14), so `weak` compares by the opaque value
 * with or without the `W/` prefix. A malformed tag, or one that is not a version this server issued,
 * matches nothing, so such a header yields an empty list and the write is refused rather than
 * applied blindly.
 */
export function ifMatchVersions(header: string | string[] | undefined, comparison: 'strong' | 'weak' = 'strong'): number[] | undefined {
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (value === undefined || value.trim() === '*') return undefined;
  const versions: number[] = [];
  for (const m of value.matchAll(/(W\/)?"([^"]*)"/g)) {
    if ((m[1] && comparison === 'strong') || !/^[1-9][0-9]{0,9}$/.test(m[2]!)) continue;
    const version = Number(m[2]);
    if (version <= MAX_VERSION) versions.push(version);
  }
  return versions;
}

/** Runs a conditional write; when it is refused, the 412 carries the current tag to retry from. */
export async function withCurrentTag<T>(reply: ReplyHeaders, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof VersionMismatch) reply.header('ETag', strongTag(error.currentVersion));
    throw error;
  }
}
