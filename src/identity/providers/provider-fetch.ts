/**
 * How the server calls identity providers: the SAML metadata URL, and every request openid-client and
 * jose make for OpenID Connect (discovery document, key sets, token and userinfo endpoints). All go
 * through the shared outbound policy (src/http/outbound/, decision 113), as webhook deliveries do:
 * public unicast addresses only, checked on the address dialled (DNS rebinding cannot reach an
 * internal one), no redirects followed, 10 s, and at most 1 MiB of body. ALLOW_INSECURE_IDP opens
 * loopback and plain http (tests run their providers in-process on 127.0.0.1); production refuses it.
 */
import { createNameResolver, type ResolverAddress } from '../../http/outbound/name-resolver.ts';
import { createOutboundClient } from '../../http/outbound/outbound-client.ts';
import { createPolicedFetch, outboundErrorIn, type PolicedFetch } from '../../http/outbound/policed-fetch.ts';

const PROVIDER_TIMEOUT_MS = 10_000;
const PROVIDER_MAX_BYTES = 1024 * 1024;
const USER_AGENT = 'schemaforge-sso/1.0 (+https://github.com/schemaforge)';

export function createProviderFetch(options: { allowInsecureIdp: boolean; dnsResolver: ResolverAddress }): PolicedFetch {
  const client = createOutboundClient({
    allowLoopback: options.allowInsecureIdp,
    allowHttp: options.allowInsecureIdp,
    resolve: createNameResolver(options.dnsResolver),
    userAgent: USER_AGENT,
    // A provider is called a few times a day per tenant: no socket is worth keeping open.
    keepAlive: false,
  });
  return createPolicedFetch(client, { timeoutMs: PROVIDER_TIMEOUT_MS, maxResponseBytes: PROVIDER_MAX_BYTES });
}

/**
 * Why a provider could not be read, in words that name nothing it answered (nor which address a name
 * resolved to); null when the error did not come from the outbound policy.
 */
export function providerFailure(error: unknown): string | null {
  const outbound = outboundErrorIn(error);
  if (!outbound) return null;
  switch (outbound.kind) {
    case 'address_refused':
    case 'scheme_refused':
      return 'address refused';
    case 'too_large':
      return 'the document is larger than 1 MiB';
    default:
      return 'the provider did not answer';
  }
}
