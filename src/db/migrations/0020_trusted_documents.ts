import { sql, type Kysely } from 'kysely';

/**
 * The GraphQL documents a server started with GRAPHQL_TRUSTED_DOCUMENTS=true runs (besides the SDK's
 * own), registered by `npm run trusted-documents -- add` from a client's persisted-documents.json
 * (graphql-codegen's client preset). `id` is the client's own id for the document
 * (`sha256:<hex>` of the text as the manifest holds it), which a client sends as `documentId`;
 * `canonical_sha256` is the SHA-256 of the document printed by graphql-js, so the same document
 * sent as text, however it is spaced, is recognised too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table trusted_documents (
      id text primary key check (length(id) between 1 and 200),
      document text not null,
      canonical_sha256 text not null,
      client_name text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index trusted_documents_canonical on trusted_documents (canonical_sha256)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table trusted_documents`.execute(db);
}
