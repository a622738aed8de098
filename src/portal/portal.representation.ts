/** JSON shapes of openapi/portal.yaml and of the admin API's portal link. */
import type { components as AdminComponents } from '../../generated/openapi/admin.ts';
import type { components } from '../../generated/openapi/portal.ts';
import type { PortalLinkRow, PortalSessionRow } from './portal.repository.ts';

type Intent = components['schemas']['PortalIntent'];

export function toPortalSession(session: PortalSessionRow, tenantName: string, idleS: number): components['schemas']['PortalSession'] {
  return {
    tenantId: session.tenant_id,
    tenantName,
    intents: session.intents as Intent[],
    expiresAt: session.expires_at.toISOString(),
    idleTimeoutSeconds: idleS,
  };
}

/** The link's URL: the page at /portal, the token in the fragment (never sent to a server). */
export function toPortalLink(link: PortalLinkRow, token: string, baseUrl: string): AdminComponents['schemas']['PortalLink'] {
  return {
    url: `${baseUrl}/portal#link=${token}`,
    tenantId: link.tenant_id,
    intents: link.intents as Intent[],
    expiresAt: link.expires_at.toISOString(),
  };
}
