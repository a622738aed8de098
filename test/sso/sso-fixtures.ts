/**
 * What the single sign-on tests share: an ADMIN caller, tenants with a provider, a domain verified
 * through the loopback DNS server, a mail transport that records, and session probes (cookie, bearer).
 */
import type { Test } from 'tap';
import type { MailMessage, MailTransport } from '../../src/identity/domains/mail-transport.ts';
import type { DnsServer } from '../helpers/dns-server.ts';
import type { TestServer } from '../helpers/server.ts';

export class RecordingMail implements MailTransport {
  readonly sent: MailMessage[] = [];

  async send(message: MailMessage): Promise<void> {
    this.sent.push(message);
  }
}

export async function adminToken(server: TestServer): Promise<string> {
  return server.token('sso-admin', ['ADMIN']);
}

export async function createTenant(server: TestServer, id: string): Promise<void> {
  await server.api.post('/api/v1/admin/tenants', { token: await adminToken(server), body: { id, name: id }, expect: 201 });
}

/** Claims `domain` for the tenant, publishes its TXT record on the test DNS server and verifies it. */
export async function verifiedDomain(server: TestServer, dns: DnsServer, tenantId: string, domain: string): Promise<void> {
  const token = await adminToken(server);
  const claim = await server.api.post(`/api/v1/admin/tenants/${tenantId}/domains`, { token, body: { domain }, expect: 201 });
  dns.setTxt(claim.body.txtRecordName, [claim.body.txtRecordValue]);
  await server.api.post(`/api/v1/admin/tenants/${tenantId}/domains/${domain}/verify`, { token, body: { method: 'dns' }, expect: 200 });
}

/** The `sf_session` value of a response's Set-Cookie, or null. */
export function sessionCookie(response: { headers: Headers }): string | null {
  for (const line of response.headers.getSetCookie()) {
    const match = /^sf_session=([^;]*)/.exec(line);
    if (match) return match[1] || null;
  }
  return null;
}

/** GET /auth/session with the session as a cookie (`cookie`) or a bearer token; the status and body. */
export async function sessionOf(t: Test, server: TestServer, token: string, as: 'cookie' | 'bearer' = 'bearer') {
  const headers: Record<string, string> = as === 'cookie' ? { cookie: `sf_session=${token}` } : { authorization: `Bearer ${token}` };
  const result = await server.api.get('/auth/session', { headers });
  t.ok([200, 401].includes(result.status), `GET /auth/session answered ${result.status}`);
  return result;
}

/** How many sessions the database holds (any state): a refused sign-in must create none. */
export async function sessionCount(server: TestServer): Promise<number> {
  const row = await server.database.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Registers a password account in a domain a tenant has verified, proving the mailbox with the code
 * `mail` received: the signed-in body of `/auth/local/verify-email`.
 */
export async function registerProven(
  server: TestServer,
  mail: RecordingMail,
  body: { email: string; password: string; username: string; displayName: string },
): Promise<any> {
  await server.api.post('/auth/local/register', { body, expect: 202 });
  const code = mailedCode(mail, body.email);
  return (await server.api.post('/auth/local/verify-email', { body: { email: body.email, code }, expect: 200 })).body;
}

/** The last 8-digit code mailed to `to`. */
export function mailedCode(mail: RecordingMail, to: string): string {
  const message = mail.sent.filter((m) => m.to === to).at(-1);
  const code = message ? /\b(\d{8})\b/.exec(message.text)?.[1] : undefined;
  if (!code) throw new Error(`no code was mailed to ${to}`);
  return code;
}
