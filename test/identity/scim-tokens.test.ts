// test-suite: once (token issue and digest rules)
/**
 * SCIM tokens: issued once over the admin API, stored as a digest only, listed without secrets,
 * revoked per tenant; `tenantForToken` (what the SCIM endpoints authenticate with) resolves a valid
 * token to its tenant and nothing else.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { bearer, dataOf, errorOf, expectStatus } from '../helpers/typed-client.ts';

const UNKNOWN = '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f';

async function withTenants(server: TestServer, ...ids: string[]): Promise<Record<string, string>> {
  const root = bearer(await server.token('root', ['ADMIN']));
  for (const id of ids) await expectStatus(201, server.admin.POST('/api/v1/admin/tenants', { body: { id, name: id }, headers: root }));
  return root;
}

function tokenClient(server: TestServer, root: Record<string, string>) {
  const { admin } = server;
  return {
    issue: (tenantId: string) =>
      admin.POST('/api/v1/admin/tenants/{tenantId}/scim-tokens', { params: { path: { tenantId } }, headers: root }),
    list: (tenantId: string, query: { page?: number; size?: number } = {}) =>
      admin.GET('/api/v1/admin/tenants/{tenantId}/scim-tokens', { params: { path: { tenantId }, query }, headers: root }),
    revoke: (tenantId: string, tokenId: string) =>
      admin.DELETE('/api/v1/admin/tenants/{tenantId}/scim-tokens/{tokenId}', { params: { path: { tenantId, tokenId } }, headers: root }),
  };
}

t.test('issue, list and revoke', async (t) => {
  const server = await sharedServer();
  const root = await withTenants(server, 'acme', 'globex');
  const tokens = tokenClient(server, root);
  const { scimTokens } = server.app.services;

  const answer = await expectStatus(201, tokens.issue('acme'));
  const first = answer.data!;
  t.match(first, { tenantId: 'acme', createdAt: String });
  t.match(first.token, /^sfscim_[A-Za-z0-9_-]{43}$/);
  t.equal(answer.response.headers.get('cache-control'), 'no-store', 'the secret is not cached');
  const second = await dataOf(201, tokens.issue('acme'));
  t.not(second.token, first.token);
  t.equal(await scimTokens.tenantForToken(first.token), 'acme');
  t.equal(await scimTokens.tenantForToken(second.token), 'acme', 'earlier tokens stay valid');

  const listed = await expectStatus(200, tokens.list('acme'));
  const text = JSON.stringify(listed.data);
  t.notOk(text.includes(first.token) || text.includes(second.token), 'no token value is listed');
  t.notOk(text.includes(createHash('sha256').update(first.token).digest('hex')), 'nor its digest');
  t.same(
    listed.data!.content.map((token) => token.id),
    [second.id, first.id],
    'newest first',
  );
  t.match(listed.data!.content[1], { id: first.id, tenantId: 'acme', revokedAt: null });
  t.same(listed.data!.page, { number: 0, size: 20, totalElements: 2, totalPages: 1, first: true, last: true });
  t.equal((await dataOf(200, tokens.list('globex'))).page.totalElements, 0, "another tenant's list is its own");
  t.equal((await dataOf(200, tokens.list('acme', { size: 1, page: 1 }))).content[0]!.id, first.id);

  await expectStatus(204, tokens.revoke('acme', first.id));
  t.equal(await scimTokens.tenantForToken(first.token), null, 'a revoked token no longer resolves');
  t.equal(await scimTokens.tenantForToken(second.token), 'acme', 'the other one still does');
  const revokedAt = (await dataOf(200, tokens.list('acme'))).content.find((token) => token.id === first.id)!.revokedAt;
  t.ok(revokedAt, 'the list shows when it was revoked');
  await expectStatus(204, tokens.revoke('acme', first.id));
  t.equal(
    (await dataOf(200, tokens.list('acme'))).content.find((token) => token.id === first.id)!.revokedAt,
    revokedAt,
    'revoking again keeps the first time',
  );

  t.match(
    await errorOf(404, tokens.revoke('globex', second.id)),
    { code: 'SCIM_TOKEN_NOT_FOUND' },
    "a tenant cannot revoke another's token",
  );
  t.equal(await scimTokens.tenantForToken(second.token), 'acme');
  await expectStatus(404, tokens.revoke('acme', UNKNOWN));
  await expectStatus(404, tokens.revoke('nobody', second.id));
  t.match((await errorOf(400, tokens.revoke('acme', 'not-a-uuid'))).errors, [{ field: 'path.tokenId' }]);
  t.match(await errorOf(404, tokens.issue('nobody')), { code: 'TENANT_NOT_FOUND' });
  t.match(await errorOf(404, tokens.list('nobody')), { code: 'TENANT_NOT_FOUND' });

  const user = bearer(await server.token('alice', ['USER']));
  await expectStatus(
    403,
    server.admin.POST('/api/v1/admin/tenants/{tenantId}/scim-tokens', { params: { path: { tenantId: 'acme' } }, headers: user }),
  );
  await expectStatus(401, server.admin.GET('/api/v1/admin/tenants/{tenantId}/scim-tokens', { params: { path: { tenantId: 'acme' } } }));
});

t.test('a token is stored as its SHA-256 only', async (t) => {
  const server = await sharedServer();
  const tokens = tokenClient(server, await withTenants(server, 'acme'));
  const issued = await dataOf(201, tokens.issue('acme'));
  const row = await server.database.db.selectFrom('scim_tokens').selectAll().where('id', '=', issued.id).executeTakeFirstOrThrow();
  t.equal(row.token_sha256, createHash('sha256').update(issued.token).digest('hex'));
  t.notOk(
    Object.values(row).some((value) => String(value).includes(issued.token.slice('sfscim_'.length))),
    'no column holds the token or its random part',
  );
});

t.test('tenantForToken: unknown and malformed tokens, and last use kept to the minute', async (t) => {
  const server = await sharedServer();
  const tokens = tokenClient(server, await withTenants(server, 'acme'));
  const { scimTokens } = server.app.services;
  const issued = await dataOf(201, tokens.issue('acme'));

  const statements: string[] = [];
  const stop = server.database.observeQueries((sql) => statements.push(sql));
  t.teardown(stop);
  for (const malformed of ['', 'Bearer x', 'sfscim_short', `${issued.token}x`, issued.token.replace('sfscim_', 'scim_'), ' '.repeat(50)]) {
    t.equal(await scimTokens.tenantForToken(malformed), null, JSON.stringify(malformed));
  }
  t.same(statements, [], 'a malformed token costs no query');
  const lookalike = `sfscim_${'A'.repeat(43)}`;
  t.equal(await scimTokens.tenantForToken(lookalike), null, 'a well-formed unknown token resolves to nothing');

  t.equal((await dataOf(200, tokens.list('acme'))).content[0]!.lastUsedAt, null, 'never used yet');
  statements.length = 0;
  t.equal(await scimTokens.tenantForToken(issued.token), 'acme');
  t.equal(statements.length, 2, 'the first use is looked up and recorded');
  const lastUsedAt = (await dataOf(200, tokens.list('acme'))).content[0]!.lastUsedAt;
  t.ok(lastUsedAt);
  statements.length = 0;
  t.equal(await scimTokens.tenantForToken(issued.token), 'acme');
  t.equal(statements.length, 1, 'a use within the minute is one indexed read, no write');
  t.equal((await dataOf(200, tokens.list('acme'))).content[0]!.lastUsedAt, lastUsedAt);

  // A use more than a minute after the recorded one is recorded again.
  await server.database.db
    .updateTable('scim_tokens')
    .set({ last_used_at: new Date(Date.now() - 120_000) })
    .where('id', '=', issued.id)
    .execute();
  t.equal(await scimTokens.tenantForToken(issued.token), 'acme');
  const later = (await dataOf(200, tokens.list('acme'))).content[0]!.lastUsedAt!;
  t.ok(Date.parse(later) > Date.now() - 60_000, 'recorded again after a minute');
});
