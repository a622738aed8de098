import type { Migration } from 'kysely';
import * as m0001 from './0001_users_and_products.ts';
import * as m0002 from './0002_content.ts';

/** Every migration, in order. Names sort lexically; add new files here. */
export const migrations: Record<string, Migration> = {
  '0001_users_and_products': m0001,
  '0002_content': m0002,
};
