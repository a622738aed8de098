/**
 * The sweep of sign-in state (src/identity/sign-in/sso-state-sweep.ts), a background job of the
 * server and worker processes: on each tick it deletes sign-ins never completed and remembered ids
 * past their time, and rate windows older than an hour; what is still current stays; after `stop`
 * it deletes nothing more.
 */
import t from 'tap';
import { PLATFORM_TENANT } from '../../src/auth/principal.ts';
import { startSsoStateSweep } from '../../src/identity/sign-in/sso-state-sweep.ts';
import { openTestDatabase } from '../helpers/database.ts';

const { db } = await openTestDatabase(t);
const silent = { warn: () => {} };
const at = (msFromNow: number) => new Date(Date.now() + msFromNow);

async function seed(prefix: string): Promise<void> {
  const request = (id: string, expiresAt: Date) => ({
    id,
    tenant_id: PLATFORM_TENANT,
    protocol: 'oidc',
    return_to: '/',
    expires_at: expiresAt,
  });
  await db
    .insertInto('sso_requests')
    .values([request(`${prefix}-old`, at(-60_000)), request(`${prefix}-new`, at(600_000))])
    .execute();
  const seen = (id: string, expiresAt: Date) => ({ tenant_id: PLATFORM_TENANT, kind: 'saml-assertion', id, expires_at: expiresAt });
  await db
    .insertInto('sso_seen_ids')
    .values([seen(`${prefix}-old`, at(-60_000)), seen(`${prefix}-new`, at(600_000))])
    .execute();
  await db
    .insertInto('rate_limit_windows')
    .values([
      { key: `${prefix}-old`, window_start: at(-2 * 3_600_000), count: 1 },
      { key: `${prefix}-new`, window_start: at(0), count: 1 },
    ])
    .execute();
}

async function left(): Promise<string[]> {
  const ids = [
    ...(await db.selectFrom('sso_requests').select('id').execute()).map((r) => `request ${r.id}`),
    ...(await db.selectFrom('sso_seen_ids').select('id').execute()).map((r) => `seen ${r.id}`),
    ...(await db.selectFrom('rate_limit_windows').select('key').execute()).map((r) => `window ${r.key}`),
  ];
  return ids.sort();
}

t.test('each tick deletes what is past its time and keeps what is current; stop ends it', async (t) => {
  await seed('a');
  const sweep = startSsoStateSweep(db, silent, 20);
  const deadline = Date.now() + 5_000;
  while ((await left()).some((id) => id.endsWith('-old')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.same(await left(), ['request a-new', 'seen a-new', 'window a-new'], 'the expired rows went, the current stayed');
  await sweep.stop();
  await seed('b');
  await new Promise((r) => setTimeout(r, 100));
  t.ok((await left()).includes('request b-old'), 'after stop, nothing more is deleted');
});
