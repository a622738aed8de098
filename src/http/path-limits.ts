/**
 * The longest path segment routed: a domain name (253 characters) must fit in one, as
 * `/admin/tenants/{tenantId}/domains/{domain}` needs. Longer is 414 `uri-too-long`.
 */
export const MAX_PATH_SEGMENT = 255;
