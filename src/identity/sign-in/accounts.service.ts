/**
 * One user record for every way of signing in (decision 89): password sign-in of `local` users, and
 * just-in-time provisioning of users a tenant's identity provider vouches for. JIT creates a user at
 * the first sign-in and refreshes its names, department and roles at each later one; it never
 * deactivates anybody, and a user SCIM deactivated cannot sign in by any method (the session store
 * refuses inactive users too, so an existing session stops at the next request).
 *
 * Roles of a session: the user's stored roles (for single sign-on: the tenant's group-to-role mapping
 * applied to the provider's groups at this sign-in). The mapping of the SCIM groups the user is a
 * member of is added at every request (src/identity/sign-in/sessions.repository.ts), so a group change holds
 * at once; and a role a tenant other than the platform's grants holds in that tenant only
 * (src/auth/principal.ts).
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { UsersRow } from '../../../generated/db/types.ts';
import { hashPassword, verifyPassword } from '../../auth/passwords.ts';
import { PLATFORM_TENANT } from '../../auth/principal.ts';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, conflict, forbidden, isUniqueViolation, unauthenticated } from '../../errors.ts';
import type { MailTransport } from '../domains/mail-transport.ts';
import { domainOfEmail, findRouteOf } from '../domains/domains.repository.ts';
import type { AttributeMapping, IdentityProvider, RoleMapping } from '../providers/provider-settings.ts';
import { recordTestSignIn } from '../providers/identity-providers.repository.ts';
import { hasHeldSession, revokeSessionsOfUser } from './sessions.repository.ts';
import type { IssuedSession, SessionOptions } from './sessions.service.ts';
import * as repo from '../../users/accounts.repository.ts';
import { recordUserChanged, recordUserCreated } from '../../users/user-events.ts';
import { groupNamesOfUser } from './memberships.repository.ts';
import type { AttemptBudget } from './attempt-budget.ts';

/** What a provider asserted about the person signing in. */
export interface ExternalIdentity {
  protocol: 'saml' | 'oidc';
  /** SAML NameID, OIDC `sub`. */
  subject: string;
  /** Provider attributes (SAML) or claims (OIDC) by name. */
  attributes: Record<string, unknown>;
  /** OIDC `sid`, SAML SessionIndex. */
  idpSessionId: string | null;
  /** OIDC: the ID token, sealed, kept on the session for the end-session redirect's `id_token_hint`. */
  idTokenSealed?: string;
}

/**
 * What an identity provider's callback established (saml/saml-sign-on.ts, oidc/oidc-sign-on.ts):
 * the provider, who it vouched for, and where the browser goes next; `test` for a test sign-in,
 * which the handler reports (`testSignIn`) instead of signing in (`signInExternal`).
 */
export interface VerifiedSignIn {
  provider: IdentityProvider;
  identity: ExternalIdentity;
  test: boolean;
  returnTo: string;
}

export interface MappedIdentity {
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  department: string | null;
  groups: string[];
}

/** What a sign-in would do, for an administrator's test sign-in. */
export interface SignInReport {
  tenantId: string;
  protocol: 'saml' | 'oidc';
  subject: string;
  attributes: Record<string, unknown>;
  mapped: MappedIdentity;
  roles: string[];
  outcome: 'create-user' | 'update-user' | 'refused';
  userId: string | null;
  refusal: string | null;
}

/** The checks of an external sign-in passed (with the roles it would grant) or refused it. */
type ExternalSignInDecision = { mapped: MappedIdentity; providerRoles: string[] } & (
  | { kind: 'refused'; refusal: string; existing: UsersRow | undefined }
  | { kind: 'accepted'; existing: UsersRow | undefined; roles: string[] }
);

/** What registering does: signs in, or waits for the code mailed to the address. */
type Registered = ({ kind: 'signed-in' } & Accepted) | { kind: 'proof-required'; user: UsersRow; sentTo: string; expiresAt: Date };

const ADDRESS_CODE_TTL_S = 30 * 60;
/** Wrong guesses at one code before it is spent (8 digits: a guess in 20 million). */
const ADDRESS_CODE_MAX_ATTEMPTS = 5;
const digestOf = (code: string) => createHash('sha256').update(code).digest();
const codeOutstanding = (user: UsersRow) => user.email_code_expires_at !== null && user.email_code_expires_at.getTime() > Date.now();

/**
 * Who signs in, and the session they are to have (roles, how they signed in): the handler opens it
 * (SessionsService.createFor), so deciding who may sign in and issuing sessions stay two services.
 */
export interface Accepted {
  user: UsersRow;
  session: SessionOptions;
}

/** A sign-in done: the user and the session opened for them. */
export interface SignedIn {
  session: IssuedSession;
  user: UsersRow;
}

function first(value: unknown): string | null {
  const v: unknown = Array.isArray(value) ? (value as unknown[])[0] : value;
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}

function list(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return values.filter((v): v is string => typeof v === 'string' && v !== '');
}

function mapIdentity(mapping: AttributeMapping, identity: ExternalIdentity, emailFromSubject: boolean): MappedIdentity {
  const a = identity.attributes;
  const email = first(a[mapping.email]) ?? (emailFromSubject && identity.subject.includes('@') ? identity.subject : null);
  return {
    email: email?.toLowerCase() ?? null,
    firstName: first(a[mapping.firstName]),
    lastName: first(a[mapping.lastName]),
    department: mapping.department ? first(a[mapping.department]) : null,
    groups: list(a[mapping.groups]),
  };
}

function mapRoles(mapping: RoleMapping, groups: readonly string[]): string[] {
  return [...new Set(groups.flatMap((g) => (Object.hasOwn(mapping, g) ? [mapping[g]!] : [])))].sort();
}

const invalidCredentials = () => unauthenticated('The e-mail address or the password is wrong');

export class AccountsService {
  constructor(
    private readonly db: Database,
    private readonly budget: AttemptBudget,
    private readonly mail: () => MailTransport,
  ) {}

  /** The tenant an e-mail address signs in to: its verified domain's, else `default`; and whether that domain enforces single sign-on. */
  async tenantOf(email: string): Promise<{ tenantId: string; enforceSso: boolean }> {
    const route = await findRouteOf(this.db, email);
    return route ? { tenantId: route.tenant_id, enforceSso: route.enforce_sso } : { tenantId: PLATFORM_TENANT, enforceSso: false };
  }

  /**
   * A new password account. In a domain a tenant has verified, the tenant's people are known by their
   * mailbox: the account waits for the code mailed to its address (verifyEmail) and signs nobody in
   * before, so registering someone else's address gains nothing (and the owner may register it again).
   * Elsewhere (the platform's tenant) the account signs in at once.
   */
  async register(
    input: { email: string; password: string; username: string; displayName: string },
    clientAddress: string,
  ): Promise<Registered> {
    const email = input.email.trim().toLowerCase();
    await this.budget.spend('register', clientAddress, email);
    const { tenantId, enforceSso } = await this.tenantOf(email);
    if (enforceSso) throw ssoRequired(email);
    const proofRequired = tenantId !== PLATFORM_TENANT;
    if (proofRequired) {
      // An earlier registration of this address that nobody proved belongs to whoever proves it.
      // Not one that has been used: an account the domain's verification moved here from the
      // platform's tenant (which signs in at once) holds what its owner made there, and a stranger
      // registering its address must not delete it; its owner proves the mailbox at sign-in.
      const unproven = await repo.findUserByEmail(this.db, tenantId, email);
      if (unproven && unproven.email_verified_at === null && unproven.source === 'local' && !(await hasHeldSession(this.db, unproven.id)))
        await repo.deleteUnprovenAccount(this.db, unproven.id);
    }
    let user: UsersRow;
    const passwordHash = await hashPassword(input.password);
    try {
      user = await inTransaction(this.db, async (trx) => {
        const created = await repo.insertAccount(trx, {
          tenant_id: tenantId,
          username: input.username,
          email,
          display_name: input.displayName,
          given_name: null,
          family_name: null,
          department: null,
          source: 'local',
          password_hash: passwordHash,
          roles: [],
          email_verified_at: null,
        });
        await recordUserCreated(trx, created);
        return created;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_tenant_email_uq'))
        throw conflict('An account with this e-mail address exists', 'DUPLICATE_EMAIL');
      if (isUniqueViolation(error, 'users_tenant_username_uq'))
        throw conflict(`The username ${input.username} is taken`, 'DUPLICATE_USERNAME');
      throw error;
    }
    if (proofRequired) return { kind: 'proof-required', user, ...(await this.mailAddressCode(user)) };
    return { kind: 'signed-in', user, session: { roles: user.roles, authMethod: 'local' } };
  }

  /** Completes a registration that needed proof of the mailbox: the code mailed to the address signs it in. */
  async verifyEmail(input: { email: string; code: string }, clientAddress: string): Promise<Accepted> {
    const email = input.email.trim().toLowerCase();
    await this.budget.spend('login', clientAddress, email);
    const { tenantId } = await this.tenantOf(email);
    const user = await repo.findUserByEmail(this.db, tenantId, email);
    const refused = () => unauthenticated('The code is wrong or has expired; register again to have a new one mailed');
    if (!user || user.email_verified_at !== null || !user.email_code_sha256 || !user.email_code_expires_at) throw refused();
    if (user.email_code_expires_at.getTime() < Date.now()) throw refused();
    const counted = await repo.countEmailCodeAttempt(this.db, user.id);
    if (counted.email_code_attempts > ADDRESS_CODE_MAX_ATTEMPTS) throw refused();
    if (!timingSafeEqual(digestOf(input.code.trim()), Buffer.from(user.email_code_sha256, 'hex'))) throw refused();
    const proven = await repo.markEmailProven(this.db, user.id);
    return { user: proven, session: { roles: proven.roles, authMethod: 'local' } };
  }

  private async mailAddressCode(user: UsersRow): Promise<{ sentTo: string; expiresAt: Date }> {
    const code = String(randomInt(0, 100_000_000)).padStart(8, '0');
    const stored = await repo.setEmailCode(this.db, user.id, digestOf(code).toString('hex'), ADDRESS_CODE_TTL_S);
    await this.mail().send({
      to: user.email,
      subject: 'Confirm your e-mail address',
      text: `Your code to finish signing up is ${code}. It expires in 30 minutes. If you did not sign up, ignore this message.`,
    });
    return { sentTo: user.email, expiresAt: stored.email_code_expires_at! };
  }

  async login(input: { email: string; password: string }, clientAddress: string): Promise<Accepted> {
    const email = input.email.trim().toLowerCase();
    await this.budget.spend('login', clientAddress, email);
    const { tenantId, enforceSso } = await this.tenantOf(email);
    if (enforceSso) throw ssoRequired(email);
    const user = await repo.findUserByEmail(this.db, tenantId, email);
    // The hash is checked even without a user, so the answer takes as long either way.
    const matches = await verifyPassword(input.password, user?.password_hash ?? null);
    if (!user || !matches) throw invalidCredentials();
    if (!user.active) throw unauthenticated('This account is deactivated');
    if (user.email_verified_at === null && user.tenant_id !== PLATFORM_TENANT) {
      // An account registered before its domain was verified, then moved into the tenant
      // (domains.service.ts), was never mailed a code: the right password has one mailed, to the
      // mailbox only, while none is outstanding (so guesses at a code stay five per 30 minutes).
      if (!codeOutstanding(user)) await this.mailAddressCode(user);
      throw new AppError('FORBIDDEN', 'Confirm the e-mail address first: type back the code mailed to it', 'EMAIL_NOT_VERIFIED');
    }
    return { user, session: { roles: user.roles, authMethod: 'local' } };
  }

  /**
   * What signing in the person a tenant's provider vouched for would do, without doing it: the
   * checklist of the test sign-in an administrator runs against a new provider.
   */
  async testSignIn(provider: IdentityProvider, identity: ExternalIdentity): Promise<SignInReport> {
    const decision = await this.decide(provider, identity);
    const { mapped } = decision;
    const refused = decision.kind === 'refused';
    const report: SignInReport = {
      tenantId: provider.tenantId,
      protocol: identity.protocol,
      subject: identity.subject,
      attributes: identity.attributes,
      mapped,
      roles: refused ? decision.providerRoles : decision.roles,
      outcome: refused ? 'refused' : decision.existing ? 'update-user' : 'create-user',
      userId: decision.existing?.id ?? null,
      refusal: refused ? decision.refusal : null,
    };
    // Kept for the portal, which shows it in another window than the one the sign-in ran in.
    await recordTestSignIn(this.db, provider.tenantId, {
      protocol: report.protocol,
      subject: report.subject,
      attributes: report.attributes,
      mapped: report.mapped,
      roles: report.roles,
      outcome: report.outcome,
      refusal: report.refusal,
    });
    return report;
  }

  /** Signs in the person a tenant's provider vouched for, creating or refreshing their account. */
  async signInExternal(provider: IdentityProvider, identity: ExternalIdentity): Promise<Accepted> {
    const decision = await this.decide(provider, identity);
    if (decision.kind === 'refused') throw unauthenticated(decision.refusal);
    const { existing, mapped, providerRoles } = decision;
    const tenantId = provider.tenantId;

    // A password account nobody proved the address of never signed in: the provider's user takes it,
    // without the password whoever registered it chose (account pre-hijack).
    const user = existing
      ? await inTransaction(this.db, async (trx) => {
          if (existing.email_verified_at === null) {
            await repo.claimUnprovenAccount(trx, existing.id, identity.protocol);
            await revokeSessionsOfUser(trx, existing.id);
          }
          const refreshed = await repo.refreshFromProvider(trx, existing.id, {
            given_name: mapped.firstName,
            family_name: mapped.lastName,
            department: mapped.department,
            roles: providerRoles,
          });
          await recordUserChanged(trx, existing, refreshed);
          return refreshed;
        })
      : await this.provision(tenantId, identity.protocol, mapped, providerRoles);
    return {
      user,
      session: {
        roles: providerRoles,
        authMethod: identity.protocol,
        idpSessionId: identity.idpSessionId,
        idpSubject: identity.subject,
        idpIdTokenSealed: identity.idTokenSealed ?? null,
      },
    };
  }

  /** The checks of an external sign-in, in order; the first that fails is the refusal. */
  private async decide(provider: IdentityProvider, identity: ExternalIdentity): Promise<ExternalSignInDecision> {
    const emailFromSubject = provider.protocol === 'oidc' || provider.saml.nameIdFormat.endsWith(':emailAddress');
    const mapped = mapIdentity(provider.attributeMapping, identity, emailFromSubject);
    const providerRoles = mapRoles(provider.roleMapping, mapped.groups);
    const refuse = (refusal: string, existing?: UsersRow): ExternalSignInDecision => ({
      kind: 'refused',
      refusal,
      existing,
      mapped,
      providerRoles,
    });

    if (!mapped.email) return refuse(`The provider sent no e-mail address (attribute "${provider.attributeMapping.email}")`);
    // The address is how the person is found; one the provider says it has not verified proves nothing.
    if (identity.attributes.email_verified === false || identity.attributes.email_verified === 'false') {
      return refuse('The provider has not verified this e-mail address');
    }
    const domain = domainOfEmail(mapped.email);
    const route = await findRouteOf(this.db, mapped.email);
    if (route && route.tenant_id !== provider.tenantId) return refuse(`The domain ${domain} belongs to another tenant`);
    const existing = await repo.findUserByEmail(this.db, provider.tenantId, mapped.email);
    if (existing && !existing.active) return refuse('This account is deactivated', existing);
    const scimRoles = existing ? mapRoles(provider.roleMapping, await groupNamesOfUser(this.db, existing.id)) : [];
    const roles = [...new Set([...providerRoles, ...scimRoles])].sort();
    return { kind: 'accepted', existing, mapped, providerRoles, roles };
  }

  private async provision(tenantId: string, source: 'saml' | 'oidc', mapped: MappedIdentity, roles: string[]): Promise<UsersRow> {
    const email = mapped.email!;
    const displayName = [mapped.firstName, mapped.lastName].filter(Boolean).join(' ') || email;
    // Each attempt its own transaction: a refused insert ends the transaction it ran in.
    const insert = (username: string) =>
      inTransaction(this.db, async (trx) => {
        const created = await repo.insertAccount(trx, {
          tenant_id: tenantId,
          username,
          email,
          display_name: displayName,
          given_name: mapped.firstName,
          family_name: mapped.lastName,
          department: mapped.department,
          source,
          password_hash: null,
          roles,
          // The provider vouches for the address.
          email_verified_at: new Date(),
        });
        await recordUserCreated(trx, created);
        return created;
      });
    try {
      // The e-mail address is unique in the tenant, so it usually makes a username that is too.
      return await insert(email);
    } catch (error) {
      // Two first sign-ins of the same person at once: the other created the user.
      const user = isUniqueViolation(error) ? await repo.findUserByEmail(this.db, tenantId, email) : undefined;
      if (user) return user;
      // Another user (a SCIM userName, say) already has this address as its username.
      if (isUniqueViolation(error, 'users_tenant_username_uq')) return insert(`${email}+${randomBytes(3).toString('hex')}`);
      throw error;
    }
  }
}

function ssoRequired(email: string): AppError {
  const error = forbidden(`${domainOfEmail(email)} signs in with single sign-on only; use GET /auth/discover to find its sign-in URL`);
  return new AppError(error.code, error.message, 'SSO_REQUIRED');
}
