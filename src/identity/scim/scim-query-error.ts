/**
 * A list query the client got wrong: a filter that cannot be parsed or names what the schema does
 * not have (`invalidFilter`), or an unknown `sortBy` or `attributes` name (`invalidValue`). The SCIM
 * transport renders it as a 400 with this `scimType` (RFC 7644 §3.12).
 */
type ScimQueryErrorType = 'invalidFilter' | 'invalidValue';

/** Messages quote the client's input; a response's `detail` needs no more than this of it. */
const MAX_MESSAGE_LENGTH = 300;

export class ScimQueryError extends Error {
  constructor(
    readonly scimType: ScimQueryErrorType,
    message: string,
  ) {
    super(message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message);
    this.name = 'ScimQueryError';
  }
}
