/**
 * `Content-Disposition: attachment` per RFC 6266: a quoted ASCII `filename` every client understands,
 * plus `filename*` (RFC 8187, UTF-8, percent-encoded) when the name is not plain ASCII.
 */
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '\\$&');
  if (/^[\x20-\x7e]*$/.test(filename)) return `attachment; filename="${ascii}"`;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
