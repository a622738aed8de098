/** Entity tags and `If-None-Match` evaluation (RFC 9110 §13.1.2: weak comparison for GET). */

export function strongTag(version: string): string {
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
