/**
 * The configuration document: one row whose revision number is its version (and so its entity tag).
 * Every update bumps the revision in the same UPDATE that stores the settings and, for a conditional
 * update, compares it: two administrators editing the same version cannot both win.
 */
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { versionCondition, type ExpectedVersions } from '../db/versioning.ts';
import { VersionMismatch } from '../errors.ts';

export interface AppConfigRecord {
  version: string;
  settings: Record<string, unknown>;
  updatedAt: Date;
}

function toRecord(row: { revision: number; settings: unknown; updated_at: Date }): AppConfigRecord {
  return { version: String(row.revision), settings: row.settings as Record<string, unknown>, updatedAt: row.updated_at };
}

export class ConfigDocumentService {
  constructor(private readonly db: Database) {}

  async get(): Promise<AppConfigRecord> {
    return toRecord(
      await this.db.selectFrom('app_config').select(['revision', 'settings', 'updated_at']).where('id', '=', 1).executeTakeFirstOrThrow(),
    );
  }

  /** `expected`: the versions the caller's copy may have; otherwise nothing is written. */
  async replaceSettings(settings: Record<string, unknown>, expected?: ExpectedVersions): Promise<AppConfigRecord> {
    let update = this.db
      .updateTable('app_config')
      .set({ settings: sql`${JSON.stringify(settings)}::jsonb`, revision: sql<number>`revision + 1`, updated_at: sql<Date>`now()` })
      .where('id', '=', 1);
    if (expected) update = update.where(versionCondition('revision', expected));
    const row = await update.returning(['revision', 'settings', 'updated_at']).executeTakeFirst();
    if (!row) throw new VersionMismatch(Number((await this.get()).version), 'The configuration');
    return toRecord(row);
  }
}
