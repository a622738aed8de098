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
  /** Starts an SP-initiated sign-in: the AuthnRequest id and relay state the response must answer. */
  startLogin(returnTo?: string): Promise<{ id: string; relayState: string; location: string }>;
  /** Response options for this tenant (ACS, audience) and `nameId`, plus overrides. */
  options(nameId: string, overrides?: Partial<SamlResponseOptions>): SamlResponseOptions;
  post(samlResponse: string, relayState?: string, tenantId?: string): Promise<Response>;
}

export async function samlTenant(t: Test, idp: TestSamlIdp, tenantId = 'acme', server?: TestServer): Promise<SamlTenant> {
  const target = server ?? (await sharedServer({ baseUrlIsListenAddress: true }));
  await createTenant(target, tenantId);
  await target.api.put(`/api/v1/admin/tenants/${tenantId}/identity-provider`, {
    token: await adminToken(target),
    body: {
      protocol: 'saml',
      metadataXml: idp.metadataXml(),
      roleMapping: { admins: 'ADMIN', editors: 'EDITOR' },
      attributeMapping: { department: 'department' },
    },
    expect: 200,
  });
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
      const location = r.headers.get('location')!;
      const request = TestSamlIdp.parseRedirect(location);
      return { id: request.id, relayState: request.relayState!, location };
    },
    options: (nameId, overrides = {}) => ({
      acsUrl,
      spEntityId,
      nameId,
      attributes: { email: nameId, firstName: 'Sam', lastName: 'Lee', groups: ['admins', 'staff'], department: 'Research' },
      ...overrides,
    }),
    post: (samlResponse, relayState, other) =>
      postToAcs(other ? `${target.baseUrl}/auth/saml/${other}/callback` : acsUrl, samlResponse, relayState),
  };
}
