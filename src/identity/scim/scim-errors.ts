/**
 * The SCIM service layer's refusals, as the project's typed errors (src/errors.ts) with the RFC 7644
 * §3.12 `scimType` as their reason. The SCIM scope's error handler (scim-error-handler.ts) is the one
 * place they become HTTP responses.
 */
import { AppError } from '../../errors.ts';

/** The `scimType` values this service provider answers with (RFC 7644 §3.12, table 9). */
export type ScimType = 'invalidFilter' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue';

const SCIM_TYPES: ReadonlySet<string> = new Set<ScimType>([
  'invalidFilter',
  'uniqueness',
  'mutability',
  'invalidSyntax',
  'invalidPath',
  'noTarget',
  'invalidValue',
]);

export function isScimType(value: string | undefined): value is ScimType {
  return value !== undefined && SCIM_TYPES.has(value);
}

/** A 400 of the given `scimType`. */
export const scimInvalid = (scimType: Exclude<ScimType, 'uniqueness'>, message: string) => new AppError('VALIDATION', message, scimType);

/** A 409 `uniqueness`: a unique attribute is taken within the tenant. */
export const scimUniqueness = (message: string) => new AppError('CONFLICT', message, 'uniqueness');

export const scimNotFound = (kind: 'User' | 'Group', id: string) => new AppError('NOT_FOUND', `${kind} ${id} not found`);
