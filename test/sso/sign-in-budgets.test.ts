// test-suite: once (budget windows under concurrent requests: real concurrency only on PostgreSQL)
/**
 * The sign-in budgets are the operator's settings, and they are counted per client address: the
 * socket's, unless a proxy named by TRUST_PROXY forwarded the request, in which case the address its
 * `X-Forwarded-For` names (so the clients behind one proxy do not share one budget, and nobody else
 * can pick an address by sending the header).
 */
import t from 'tap';
import { sharedServer, type TestServer } from '../helpers/server.ts';

const BUDGETS = { SIGN_IN_ATTEMPTS_PER_ADDRESS: '3', SIGN_IN_ATTEMPTS_PER_ACCOUNT: '2', REGISTRATIONS_PER_ADDRESS: '2' };

async function login(server: TestServer, email: string, forwardedFor?: string): Promise<number> {
  const headers = forwardedFor ? { 'x-forwarded-for': forwardedFor } : undefined;
  return (await server.api.post('/auth/login', { body: { email, password: 'not the password at all' }, ...(headers ? { headers } : {}) }))
    .status;
}

t.test('the budgets come from the configuration', async (t) => {
  const server = await sharedServer({ env: BUDGETS });
  t.same(
    [await login(server, 'a@example.com'), await login(server, 'a@example.com'), await login(server, 'a@example.com')],
    [401, 401, 429],
    'SIGN_IN_ATTEMPTS_PER_ACCOUNT=2',
  );
  t.equal(await login(server, 'b@example.com'), 429, 'SIGN_IN_ATTEMPTS_PER_ADDRESS=3 from this address');
  const registrations: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await server.api.post('/auth/local/register', {
      body: { email: `n${i}@example.com`, password: 'correct horse battery staple', username: `n${i}user`, displayName: 'N' },
    });
    registrations.push(r.status);
  }
  t.same(registrations, [201, 201, 429], 'REGISTRATIONS_PER_ADDRESS=2');
});

t.test('without TRUST_PROXY, X-Forwarded-For picks no budget', async (t) => {
  const server = await sharedServer({ env: BUDGETS });
  const statuses = [];
  for (const [i, forwarded] of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4'].entries()) {
    statuses.push(await login(server, `x${i}@example.com`, forwarded));
  }
  t.same(statuses, [401, 401, 401, 429], 'every request spends the socket address’s budget');
});

t.test('behind a trusted proxy, each forwarded client has its own budget', async (t) => {
  const server = await sharedServer({ env: { ...BUDGETS, TRUST_PROXY: '127.0.0.1' } });
  const first = [];
  for (let i = 0; i < 4; i++) first.push(await login(server, `p${i}@example.com`, '203.0.113.10'));
  t.same(first, [401, 401, 401, 429], 'one forwarded client spends its own budget');
  t.equal(await login(server, 'q@example.com', '203.0.113.11'), 401, 'another forwarded client is not held back');
  t.equal(await login(server, 'r@example.com', '198.51.100.7, 203.0.113.10'), 429, 'the nearest untrusted hop is the client');
});
