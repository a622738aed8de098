/** Every area's service over one database handle: what transports (REST, GraphQL, workers) call. */
import { ProductsService } from './catalog/products.service.ts';
import { CustomersService } from './orders/customers.service.ts';
import { OrdersService } from './orders/orders.service.ts';
import { FilesService } from './files/files.service.ts';
import { ConfigDocumentService } from './files/config-document.service.ts';
import { UsersService } from './users/users.service.ts';
import { CommentsService } from './content/comments.service.ts';
import { ContentLoaderFactory } from './content/content.loaders.ts';
import { ContentPlanner, type OperationPlanLog } from './content/planner/operation-plan.ts';
import { PostsService } from './content/posts.service.ts';
import { PostListsService } from './content/post-lists.service.ts';
import { SignUpBudget } from './users/sign-up-budget.ts';
import { ScimTokensService } from './identity/tenants/scim-tokens.service.ts';
import { SessionsService } from './identity/sign-in/sessions.service.ts';
import { ScimActivityService } from './identity/scim/scim-activity.service.ts';
import { ScimGroupsService } from './identity/scim/scim-groups.service.ts';
import { ScimUsersService } from './identity/scim/scim-users.service.ts';
import { TenantsService } from './identity/tenants/tenants.service.ts';
import { PortalService } from './portal/portal.service.ts';
import { WebhookEndpointsService } from './webhooks/subscriptions/endpoints.service.ts';
import { productEventSamples } from './catalog/product-events.ts';
import { orderEventSamples } from './orders/order-events.ts';
import { userEventSamples } from './users/user-events.ts';
import { groupEventSamples } from './identity/scim/group-events.ts';
import { providerEventSamples } from './identity/providers/provider-events.ts';
import { domainEventSamples } from './identity/domains/domain-events.ts';
import { createNameResolver } from './http/outbound/name-resolver.ts';
import { AccountsService } from './identity/sign-in/accounts.service.ts';
import { AttemptBudget } from './identity/sign-in/attempt-budget.ts';
import { DomainsService } from './identity/domains/domains.service.ts';
import type { MailTransport } from './identity/domains/mail-transport.ts';
import { createTxtLookup } from './identity/domains/txt-records.ts';
import { IdentityProvidersService } from './identity/providers/identity-providers.service.ts';
import { createProviderFetch } from './identity/providers/provider-fetch.ts';
import { OidcConfigurations } from './identity/oidc/oidc-configurations.ts';
import { OidcSignOn } from './identity/oidc/oidc-sign-on.ts';
import { SamlSignOn } from './identity/saml/saml-sign-on.ts';
import { SamlSpKeys } from './identity/saml/sp-keys.ts';
import { SecretBox } from './auth/secret-box.ts';
import type { Authenticator } from './auth/authenticate.ts';
import type { Config } from './config.ts';
import { storageHeadroom } from './db/storage-headroom.ts';
import type { Database } from './db/database.ts';

export interface Services {
  users: UsersService;
  posts: PostsService;
  comments: CommentsService;
  /** Per-request batchers for the content graph (GraphQL field resolution). */
  contentLoaders: ContentLoaderFactory;
  planner: ContentPlanner | null;
  products: ProductsService;
  customers: CustomersService;
  orders: OrdersService;
  files: FilesService;
  configDocument: ConfigDocumentService;
  postLists: PostListsService;
  tenants: TenantsService;
  portal: PortalService;
  /** Issues and revokes SCIM tokens, and resolves a SCIM request's token to its tenant. */
  scimTokens: ScimTokensService;
  /** Server-side sessions, and the credential store every bearer token is checked against. */
  sessions: SessionsService;
  /** SCIM 2.0 users and groups, always within the tenant the caller names. */
  scimUsers: ScimUsersService;
  scimGroups: ScimGroupsService;
  /** What each tenant's SCIM requests were and how they ended (recorded by /scim/v2, listed by the admin API). */
  scimActivity: ScimActivityService;
  /** Webhook endpoints: registration (address-checked), rotation, test, replay, attempts, health. */
  webhookEndpoints: WebhookEndpointsService;
  /** Each tenant's identity provider (SAML or OpenID Connect) and its mappings. */
  identityProviders: IdentityProvidersService;
  /** Domains that route sign-ins to tenants, and their verification. */
  domains: DomainsService;
  /** Password sign-in and registration, and the one user record single sign-on provisions. */
  accounts: AccountsService;
  saml: SamlSignOn;
  samlSpKeys: SamlSpKeys;
  oidc: OidcSignOn;
}

interface ServiceDependencies {
  /** The key stored client secrets are sealed with (src/auth/secret.ts resolves SECRETS_KEY). */
  secretsKey: string;
  /** Sends domain verification codes. */
  mail: MailTransport;
  /** Where the GraphQL planner shows its plans at debug level (the server's logger). */
  log?: OperationPlanLog;
}

export function createServices(
  db: Database,
  config: Pick<
    Config,
    | 'authSessionTtlS'
    | 'dnsResolver'
    | 'webhookAllowPrivateTargets'
    | 'webhookSecretOverlapS'
    | 'baseUrl'
    | 'allowInsecureIdp'
    | 'signInBudgets'
    | 'createUserPerAddress'
    | 'filesQuotaBytes'
    | 'graphqlPlanner'
    | 'database'
  >,
  dependencies: ServiceDependencies,
): Services {
  const headroom = storageHeadroom(config.database);
  const posts = new PostsService(db);
  const tenants = new TenantsService(db);
  const sessions = new SessionsService(db, config.authSessionTtlS);
  // One policed client for every request to identity providers (SAML metadata, OpenID Connect).
  const providerFetch = createProviderFetch({ allowInsecureIdp: config.allowInsecureIdp, dnsResolver: config.dnsResolver });
  const oidcConfigurations = new OidcConfigurations(config.allowInsecureIdp, providerFetch);
  const secretBox = new SecretBox(dependencies.secretsKey);
  const samlSpKeys = new SamlSpKeys(db, secretBox);
  const identityProviders = new IdentityProvidersService(db, secretBox, {
    allowInsecureIdp: config.allowInsecureIdp,
    checkOidc: oidcConfigurations.check,
    fetch: providerFetch,
    baseUrl: config.baseUrl,
  });
  const domains = new DomainsService(db, createTxtLookup(config.dnsResolver), () => dependencies.mail);
  const accounts = new AccountsService(db, new AttemptBudget(db, config.signInBudgets), () => dependencies.mail);
  const users = new UsersService(db, new SignUpBudget(db, config.createUserPerAddress));
  return {
    users,
    posts,
    comments: new CommentsService(db),
    contentLoaders: new ContentLoaderFactory(db),
    planner: config.graphqlPlanner ? new ContentPlanner(db, dependencies.log ?? null) : null,
    products: new ProductsService(db, headroom),
    customers: new CustomersService(db),
    orders: new OrdersService(db),
    files: new FilesService(db, config.filesQuotaBytes, headroom),
    configDocument: new ConfigDocumentService(db),
    postLists: new PostListsService(db),
    tenants,
    portal: new PortalService(db),
    scimTokens: new ScimTokensService(db),
    sessions,
    scimUsers: new ScimUsersService(db),
    scimGroups: new ScimGroupsService(db),
    scimActivity: new ScimActivityService(db),
    webhookEndpoints: new WebhookEndpointsService(db, {
      resolve: createNameResolver(config.dnsResolver),
      allowPrivateTargets: config.webhookAllowPrivateTargets,
      secretOverlapS: config.webhookSecretOverlapS,
      baseUrl: config.baseUrl,
      secretBox,
      samples: {
        ...productEventSamples,
        ...orderEventSamples,
        ...userEventSamples,
        ...groupEventSamples,
        ...providerEventSamples(config.baseUrl),
        ...domainEventSamples,
      },
    }),
    identityProviders,
    domains,
    accounts,
    saml: new SamlSignOn(db, secretBox, config.baseUrl),
    samlSpKeys,
    oidc: new OidcSignOn(db, secretBox, oidcConfigurations, config.baseUrl),
  };
}

/** What an area plugin is registered with: the services it uses (`K`) and the bearer-token authenticator. */
export interface AreaOptions<K extends keyof Services> {
  services: Pick<Services, K>;
  authenticate: Authenticator;
}

/** The services named, and only those: what src/app.ts hands each area plugin. */
export function servicesFor<K extends keyof Services>(services: Services, ...names: K[]): Pick<Services, K> {
  return Object.fromEntries(names.map((name) => [name, services[name]])) as Pick<Services, K>;
}
