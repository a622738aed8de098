/**
 * The configuration document: one row whose revision number is its version (and so its entity tag).
 * Every update bumps the revision in the same UPDATE that stores the settings.
 */
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export interface AppConfigRecord {
  version: string;
  settings: Record<string, unknown>;
  updatedAt: Date;
}

function toRecord(row: { revision: number; settings: unknown; updated_at: Date }): AppConfigRecord {
  return { version: String(row.revision), settings: row.settings as Record<string, unknown>, updatedAt: row.updated_at };
}

export class ConfigService {
  constructor(private readonly db: Database) {}

  async get(): Promise<AppConfigRecord> {
    return toRecord(await this.db.selectFrom('app_config').select(['revision', 'settings', 'updated_at']).where('id', '=', 1).executeTakeFirstOrThrow());
  }

  async replaceSettings(settings: Record<string, unknown>): Promise<AppConfigRecord> {
    const row = await this.db
      .updateTable('app_config')
      .set({ settings: sql`${JSON.stringify(settings)}::jsonb`, revision: sql<number>`revision + 1`, updated_at: sql<Date>`now()` })
      .where('id', '=', 1)
      .returning(['revision', 'settings', 'updated_at'])
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }
}
