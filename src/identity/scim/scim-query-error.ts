/**
 * A list query the client got wrong: a filter that cannot be parsed or names what the schema does
 * not have (`invalidFilter`), or an unknown `sortBy` or `attributes` name (`invalidValue`). The SCIM
 * transport renders it as a 400 with this `scimType` (RFC 7644 §3.12).
 */
export type ScimQueryErrorType = 'invalidFilter' | 'invalidValue';

export class ScimQueryError extends Error {
  constructor(
    readonly scimType: ScimQueryErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'ScimQueryError';
  }
}
