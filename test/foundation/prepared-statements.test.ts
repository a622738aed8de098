/**
 * The credential queries every authenticated request runs are named statements on PostgreSQL
 * (src/db/prepared-statements.ts): prepared once on a connection, then reused. On PGlite, whose
 * query API has no named statements, SQL-level PREPARE and EXECUTE do the same, the values passed as
 * quoted literals. Also: the credential epoch moves with a revocation and not with a session's
 * `last_seen_at` (migration 0019).
 */
import { sql } from 'kysely';
import { preparedName } from '../../src/db/prepared-statements.ts';
import t from 'tap';
import { credentialEpoch, findSubject } from '../../src/identity/sign-in/sessions.repository.ts';
import { onPostgres, openTestDatabase } from '../helpers/database.ts';

t.test('credential queries are prepared once per connection, on PostgreSQL and on PGlite', async (t) => {
  const { db } = await openTestDatabase(t);
  // One transaction: one connection, whose prepared statements pg_prepared_statements lists.
  const prepared = await db.transaction().execute(async (trx) => {
    const first = await credentialEpoch(trx);
    t.equal(await credentialEpoch(trx), first, 'the named statement runs again on the same connection');
    t.match(await findSubject(trx, 'nobody'), { tenant_id: null, deleted: false, epoch: first });
    const { rows } = await sql<{ name: string; calls: number }>`
      select name, generic_plans + custom_plans as calls from pg_prepared_statements where name like 'credential-%' order by name`.execute(
      trx,
    );
    return rows;
  });
  t.same(
    prepared.map((r) => r.name),
    ['credential-epoch', 'credential-subject'],
    onPostgres ? 'both were sent as named statements' : 'both were prepared with PREPARE',
  );
  t.equal(prepared.find((r) => r.name === 'credential-epoch')?.calls, 2, 'prepared once, executed twice');
});

t.test('a prepared statement gets its values exactly, whatever they hold', async (t) => {
  const { db } = await openTestDatabase(t);
  const echo = (value: unknown) =>
    sql<{ v: string | null; n: number | null; b: boolean | null }>`${sql.raw(preparedName('test-echo'))}
      select ${value}::text as v, ${7}::int + 1 as n, ${true}::boolean as b`.execute(db);
  const hostile = `it's \\ "quoted" '); drop table users; -- \u00e9\n$1`;
  for (const value of [hostile, '', 'plain', 42, null]) {
    const { rows } = await echo(value);
    t.same(rows, [{ v: value === null ? null : String(value), n: 8, b: true }], `as sent: ${JSON.stringify(value)}`);
  }
  t.ok(await db.selectFrom('users').select('id').execute(), 'nothing ran but the statement');
  // A value that is not a plain one (a Date) runs the statement as it is, unprepared.
  const date = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
  const { rows } = await sql<{ v: Date }>`${sql.raw(preparedName('test-date'))} select ${date}::timestamptz as v`.execute(db);
  t.equal(rows[0]?.v.toISOString(), date.toISOString());
});

t.test('the credential epoch moves with what a credential stands for, and only with that', async (t) => {
  const { db } = await openTestDatabase(t);
  const epoch = () => credentialEpoch(db);
  await sql`insert into users (id, username, email, display_name) values ('u1', 'u1', 'u1@example.com', 'U1')`.execute(db);
  const created = await epoch();
  await sql`insert into sessions (user_id, tenant_id, token_sha256, expires_at) values ('u1', 'default', 'digest', now() + interval '1 hour')`.execute(
    db,
  );
  t.equal(await epoch(), created, 'a new session leaves it');
  await sql`update sessions set last_seen_at = now()`.execute(db);
  await sql`update users set display_name = 'U One' where id = 'u1'`.execute(db);
  t.equal(await epoch(), created, 'last_seen_at and a name leave it');
  await sql`update sessions set revoked_at = now()`.execute(db);
  const revoked = await epoch();
  t.ok(revoked > created, 'a revoked session raises it');
  await db.transaction().execute(async (trx) => {
    await sql`update users set active = false where id = 'u1'`.execute(trx);
    await sql`update users set roles = '{ADMIN}' where id = 'u1'`.execute(trx);
    await sql`delete from users where id = 'u1'`.execute(trx);
  });
  t.equal(await epoch(), revoked + 1, 'a transaction raises it once, however many changes it makes');
});
