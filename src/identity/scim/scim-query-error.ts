/**
 * PROVISIONAL (i14-scim): the module contract of docs MAPPING.md, to be replaced by the i14-filter
 * branch's version at merge.
 */
export type ScimQueryErrorType = 'invalidFilter' | 'invalidValue';

/** A list query the service provider cannot run: a bad filter, sort attribute or attribute list. */
export class ScimQueryError extends Error {
  constructor(
    readonly scimType: ScimQueryErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'ScimQueryError';
  }
}
