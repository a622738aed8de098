import { sql, type Kysely } from 'kysely';

/**
 * An event carries the link of its resource (the envelope's `url`), set by the area that records
 * it, so the webhooks area renders envelopes without knowing any area's routes. Events recorded
 * before this migration get the paths the envelope derived for them until now; a deleted resource
 * (and any other type) has none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_events add column resource_path text`.execute(db);
  await sql`
    update webhook_events set resource_path = case resource_type
      when 'order' then '/api/v1/orders/' || resource_id
      when 'product' then '/api/v1/products/' || resource_id
    end
    where type not like '%.deleted'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_events drop column resource_path`.execute(db);
}
