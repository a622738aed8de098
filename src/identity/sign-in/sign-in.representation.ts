/** JSON shapes of openapi/auth.yaml. */
import type { components } from '../../../generated/openapi/auth.ts';
import type { UsersRow } from '../../../generated/db/types.ts';
import { PLATFORM_TENANT, type Principal } from '../../auth/principal.ts';
import type { IdentityProvider } from '../providers/provider-settings.ts';
import type { SessionRecord } from './sessions.service.ts';
import type { SignedIn, SignInReport } from './accounts.service.ts';

type Schemas = components['schemas'];

function toAuthUser(user: UsersRow): Schemas['User'] {
  return {
    id: user.id,
    tenantId: user.tenant_id,
    username: user.username,
    email: user.email,
    displayName: user.display_name,
    roles: user.roles,
  };
}

export function toSignedIn({ session, user }: SignedIn): Schemas['SignedIn'] {
  return { token: session.token, expiresAt: session.record.expires_at.toISOString(), user: toAuthUser(user) };
}

/** `principal`: the request's, whose roles are the session's now (its groups read at this request). */
export function toSession(session: SessionRecord, user: UsersRow, principal: Principal): Schemas['Session'] {
  return {
    id: session.id,
    tenantId: session.tenant_id,
    authMethod: session.auth_method as Schemas['Session']['authMethod'],
    roles: principal.tenantRoles,
    roleScope: session.tenant_id === PLATFORM_TENANT ? 'platform' : 'tenant',
    createdAt: session.created_at.toISOString(),
    expiresAt: session.expires_at.toISOString(),
    user: toAuthUser(user),
  };
}

export function toDiscovery(
  tenantId: string,
  enforceSso: boolean,
  provider: IdentityProvider | null,
  baseUrl: string,
): Schemas['Discovery'] {
  if (!provider) return { tenantId, authMethod: 'local', enforceSso };
  const loginUrl = `${baseUrl}/auth/${provider.protocol}/${tenantId}/login`;
  return {
    tenantId,
    authMethod: provider.protocol,
    enforceSso,
    provider:
      provider.protocol === 'saml'
        ? { protocol: 'saml', loginUrl, entityId: provider.saml.entityId, ssoUrl: provider.saml.ssoUrl }
        : { protocol: 'oidc', loginUrl, issuer: provider.oidc.issuer, clientId: provider.oidc.clientId },
  };
}

export function toSignInReport(report: SignInReport): Schemas['SignInReport'] {
  return { test: true, ...report, attributes: report.attributes as Record<string, never> };
}
