/**
 * `If-Match` on SCIM writes (RFC 7644 §3.14). SCIM versions are weak entity tags (`W/"3"`) and clients
 * send back exactly what `meta.version` said, so tags compare by their opaque value with or without
 * the `W/` prefix (unlike the REST areas' strong comparison, src/http/etag.ts). `*` or no header:
 * unconditional. A header naming no version this server issued yields an empty list: the write is
 * refused (412), never applied blindly.
 */
import type { ExpectedVersions } from '../../db/versioning.ts';

const MAX_VERSION = 2_147_483_647;

export function scimIfMatch(header: string | string[] | undefined): ExpectedVersions {
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (value === undefined || value.trim() === '*') return undefined;
  const versions: number[] = [];
  for (const match of value.matchAll(/(?:W\/)?"([^"]*)"/g)) {
    if (!/^[1-9][0-9]{0,9}$/.test(match[1]!)) continue;
    const version = Number(match[1]);
    if (version <= MAX_VERSION) versions.push(version);
  }
  return versions;
}
