/** A server with a SAML tenant wired to a test identity provider, and the sign-in steps the SAML tests take. */
import type { Test } from 'tap';
import { postToAcs, TestSamlIdp, type SamlResponseOptions } from '../helpers/saml-idp.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { adminToken, createTenant } from './sso-fixtures.ts';

export interface SamlTenant {
  server: TestServer;
  idp: TestSamlIdp;
  tenantId: string;
  acsUrl: string;
  spEntityId: string;
  /** Starts an SP-initiated sign-in: the AuthnRequest id and relay state the response must answer, and its browser cookie. */
  startLogin(returnTo?: string): Promise<{ id: string; relayState: string; location: string; cookie: string | null }>;
  /** Response options for this tenant (ACS, audience) and `nameId`, plus overrides. */
  options(nameId: string, overrides?: Partial<SamlResponseOptions>): SamlResponseOptions;
  /** Posts as the browser of the last startLogin, unless `cookie` says which sign-in cookie to send (null: none). */
  post(samlResponse: string, relayState?: string, tenantId?: string, cookie?: string | null): Promise<Response>;
}

/**
 * A tenant whose provider is `idp`. The tests post provider-initiated responses as well, so the
 * tenant accepts them unless `allowIdpInitiated: false`. Like a browser, it keeps the sign-in cookie
 * the last `startLogin` was given and sends it with `post`.
 */
export async function samlTenant(
  t: Test,
  idp: TestSamlIdp,
  tenantId = 'acme',
  server?: TestServer,
  { allowIdpInitiated = true }: { allowIdpInitiated?: boolean } = {},
): Promise<SamlTenant> {
  const target = server ?? (await sharedServer({ baseUrlIsListenAddress: true }));
  await createTenant(target, tenantId);
  await target.api.put(`/api/v1/admin/tenants/${tenantId}/identity-provider`, {
    token: await adminToken(target),
    body: {
      protocol: 'saml',
      metadataXml: idp.metadataXml(),
      roleMapping: { admins: 'ADMIN', editors: 'EDITOR' },
      attributeMapping: { department: 'department' },
      allowIdpInitiated,
    },
    expect: 200,
  });
  let browserCookie: string | null = null;
  const acsUrl = `${target.baseUrl}/auth/saml/${tenantId}/callback`;
  const spEntityId = `${target.baseUrl}/saml/metadata/${tenantId}`;
  return {
    server: target,
    idp,
    tenantId,
    acsUrl,
    spEntityId,
    async startLogin(returnTo = '/') {
      const r = await fetch(`${target.baseUrl}/auth/saml/${tenantId}/login?returnTo=${encodeURIComponent(returnTo)}`, {
        redirect: 'manual',
      });
      if (r.status !== 302) throw new Error(`login answered ${r.status}: ${await r.text()}`);
      browserCookie = signInCookie(r);
      const location = r.headers.get('location')!;
      const request = TestSamlIdp.parseRedirect(location);
      return { id: request.id, relayState: request.relayState!, location, cookie: browserCookie };
    },
    options: (nameId, overrides = {}) => ({
      acsUrl,
      spEntityId,
      nameId,
      attributes: { email: nameId, firstName: 'Sam', lastName: 'Lee', groups: ['admins', 'staff'], department: 'Research' },
      ...overrides,
    }),
    post: (samlResponse, relayState, other, cookie = browserCookie) =>
      postToAcs(other ? `${target.baseUrl}/auth/saml/${other}/callback` : acsUrl, samlResponse, relayState, cookie),
  };
}

/** The certificates (PEM) of SP metadata's KeyDescriptors of `use`, in document order. */
export function publishedCertificates(xml: string, use: 'signing' | 'encryption'): string[] {
  const descriptors = [...xml.matchAll(/<KeyDescriptor use="(\w+)">([\s\S]*?)<\/KeyDescriptor>/g)].filter((m) => m[1] === use);
  return descriptors.map((m) => {
    const base64 = /<ds:X509Certificate>([^<]+)</.exec(m[2]!)![1]!.replace(/\s+/g, '');
    return `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  });
}

/** The tenant's SP metadata (`GET /saml/metadata/{tenant}`). */
export async function spMetadataOf(tenant: Pick<SamlTenant, 'server' | 'tenantId'>): Promise<string> {
  return (await fetch(`${tenant.server.baseUrl}/saml/metadata/${tenant.tenantId}`)).text();
}

/** The encryption certificate the tenant's SP metadata publishes: what a provider encrypts assertions to. */
export async function spEncryptionCertificate(tenant: Pick<SamlTenant, 'server' | 'tenantId'>): Promise<string> {
  const [certificate] = publishedCertificates(await spMetadataOf(tenant), 'encryption');
  if (!certificate) throw new Error(`the SP metadata of ${tenant.tenantId} publishes no encryption certificate`);
  return certificate;
}

/** The `sf_signin` value a login response sets (the binding of the sign-in to the browser), or null. */
function signInCookie(response: { headers: Headers }): string | null {
  for (const line of response.headers.getSetCookie()) {
    const match = /^sf_signin=([^;]*)/.exec(line);
    if (match) return match[1] || null;
  }
  return null;
}
