/** The media type of every SCIM response body (RFC 7644 §8.1). */
export const SCIM_MEDIA_TYPE = 'application/scim+json; charset=utf-8';
