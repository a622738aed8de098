import { sql, type Kysely } from 'kysely';

/**
 * The upload quota (FILES_QUOTA_BYTES) sums the sizes of an uploader's files before every upload: an
 * index on (uploaded_by, size) answers it from the index alone, however many files others stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index files_uploaded_by_idx on files (uploaded_by, size)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index files_uploaded_by_idx`.execute(db);
}
