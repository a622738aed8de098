/**
 * Which identity provider URLs the server will call or send browsers to: https only. Plain http is
 * accepted for loopback addresses when ALLOW_INSECURE_IDP=true, which exists for tests whose
 * providers run in-process; production refuses the variable.
 */
import { validationFailed, type FieldPath } from '../../errors.ts';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function checkProviderUrl(value: string, field: FieldPath, allowInsecure: boolean): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw validationFailed([{ field, message: 'is not an absolute URL' }]);
  }
  if (url.username || url.password) throw validationFailed([{ field, message: 'must not carry a user name or password' }]);
  if (url.protocol === 'https:') return value;
  if (url.protocol === 'http:' && allowInsecure && LOOPBACK.has(url.hostname)) return value;
  throw validationFailed([{ field, message: allowInsecure ? 'must be https (http only on a loopback address)' : 'must be an https URL' }]);
}
