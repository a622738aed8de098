/**
 * The rules of the authorization matrix: for each kind of operation, what each caller gets, written
 * from the trust model (docs/security.md), not from the server's answers. A cell is `ok` (the
 * operation's success status, or a GraphQL result without errors), an HTTP status, or a GraphQL
 * `errorType`.
 */
import { CALLER_HEADINGS, CALLERS, type Caller } from './world.ts';

type Cell = 'ok' | 400 | 401 | 403 | 404 | 'UNAUTHORIZED' | 'FORBIDDEN' | 'NOT_FOUND';

interface Rule {
  /** How the rule reads in docs/security.md. */
  says: string;
  /** One cell per caller, in the order of CALLERS. */
  cells: readonly [Cell, Cell, Cell, Cell, Cell, Cell];
}

const RULES = {
  public: {
    says: 'Anyone, signed in or not; a credential changes nothing.',
    cells: ['ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
  },
  signedIn: {
    says: 'Any signed-in user, of any tenant; acts on the caller’s own data.',
    cells: [401, 'ok', 'ok', 'ok', 'ok', 'ok'],
  },
  owner: {
    says: 'The owner and the platform ADMIN; anyone else signed in is refused (403): a tenant’s ADMIN does not administer its users’ orders.',
    cells: [401, 'ok', 403, 403, 403, 'ok'],
  },
  ownerOnlyHidden: {
    says: 'The owner and the platform ADMIN; to anyone else the resource does not exist (404).',
    cells: [401, 'ok', 404, 404, 404, 'ok'],
  },
  platformAdmin: {
    says: 'The platform ADMIN only (the platform’s own resources: catalog, tenants, shipping).',
    cells: [401, 403, 403, 403, 403, 'ok'],
  },
  ownTenantAdmin: {
    says: 'The ADMIN of the tenant named in the path, and the platform ADMIN.',
    cells: [401, 403, 403, 'ok', 403, 'ok'],
  },
  otherTenantAdmin: {
    says: 'The same operation on another tenant: its ADMIN would pass, tenant A’s ADMIN finds no such tenant (404).',
    cells: [401, 403, 403, 404, 403, 'ok'],
  },
  ownScopeAdmin: {
    says: 'A tenant’s ADMIN, acting on its own tenant’s resources (webhook endpoints), and the platform ADMIN, on every one.',
    cells: [401, 403, 403, 'ok', 403, 'ok'],
  },
  platformEndpoint: {
    says: 'A platform webhook endpoint: the platform ADMIN; a tenant’s ADMIN finds no such endpoint (404).',
    cells: [401, 403, 403, 404, 403, 'ok'],
  },
  portalSession: {
    says: 'The portal session’s own routes: its `sf_portal` cookie only; no bearer credential or sign-in session opens them.',
    cells: [401, 401, 401, 401, 401, 401],
  },
  scimClient: {
    says: 'A tenant’s SCIM token only; no user credential, the platform ADMIN’s included, opens SCIM (its tests: test/identity/scim-isolation.test.ts).',
    cells: [401, 401, 401, 401, 401, 401],
  },
  metricsToken: {
    says: 'The METRICS_TOKEN bearer only (or the METRICS_PORT listener); no user credential opens it.',
    cells: [401, 401, 401, 401, 401, 401],
  },
  providerAssertion: {
    says: 'The identity provider’s signed answer is the credential; the caller’s own counts for nothing (a forged answer: refused).',
    cells: [401, 401, 401, 401, 401, 401],
  },
  providerToken: {
    says: 'The identity provider’s signed logout token is the credential (a forged token: 400, as the back-channel specification says).',
    cells: [400, 400, 400, 400, 400, 400],
  },
  providerLogoutMessage: {
    says: 'The identity provider’s signed SAML LogoutRequest or LogoutResponse is the credential; the caller’s own counts for nothing (a forged or unsigned message: 400, nothing ended).',
    cells: [400, 400, 400, 400, 400, 400],
  },
  gqlSignedIn: {
    says: 'Any signed-in user; acts as the caller.',
    cells: ['UNAUTHORIZED', 'ok', 'ok', 'ok', 'ok', 'ok'],
  },
  gqlSelf: {
    says: 'The user themselves only; not even an ADMIN edits another’s profile.',
    cells: ['UNAUTHORIZED', 'ok', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN'],
  },
  gqlAuthor: {
    says: 'The author and the platform ADMIN; others see the post but may not change it.',
    cells: ['UNAUTHORIZED', 'ok', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN', 'ok'],
  },
  gqlDraft: {
    says: 'A draft exists only for its author and the platform ADMIN; to anyone else it is not found.',
    cells: ['NOT_FOUND', 'ok', 'NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND', 'ok'],
  },
  gqlDraftChange: {
    says: 'A change to a draft: its author and the platform ADMIN; anyone else signed in finds no such post.',
    cells: ['UNAUTHORIZED', 'ok', 'NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND', 'ok'],
  },
  gqlOwnTenantAdmin: {
    says: 'An ADMIN of the user’s tenant, and the platform ADMIN.',
    cells: ['UNAUTHORIZED', 'FORBIDDEN', 'FORBIDDEN', 'ok', 'FORBIDDEN', 'ok'],
  },
  gqlOtherTenantAdmin: {
    says: 'The same on a user of another tenant: tenant A’s ADMIN finds no such user.',
    cells: ['UNAUTHORIZED', 'FORBIDDEN', 'FORBIDDEN', 'NOT_FOUND', 'FORBIDDEN', 'ok'],
  },
} as const satisfies Record<string, Rule>;

export type RuleName = keyof typeof RULES;

export function expected(rule: RuleName, caller: Caller): Cell {
  return RULES[rule].cells[CALLERS.indexOf(caller)]!;
}

/**
 * How an operation treats a portal session (openapi/portal.yaml): `intent` (its `x-portal-intent`
 * names one of the session's, here all four), `own` (the portal's own routes), or `none`.
 */
export type PortalCoverage = 'intent' | 'own' | 'none';

/**
 * What the portal session of tenant A gets: where an operation accepts it, what tenant A's ADMIN
 * gets (it acts as that ADMIN there, and nowhere else); on its own routes, success; elsewhere the
 * cookie is no credential at all, so what an anonymous caller gets.
 */
export function portalCell(rule: RuleName, coverage: PortalCoverage): Cell {
  if (coverage === 'intent') return expected(rule, 'tenantAdmin');
  return coverage === 'own' ? 'ok' : expected(rule, 'anonymous');
}

export interface TableRow {
  operation: string;
  target: string;
  rule: RuleName;
  /** What `ok` shows as: the success status of an HTTP operation, `ok` for GraphQL. */
  ok: string;
  portal: PortalCoverage;
}

export const TABLE_START =
  '<!-- authorization-matrix:start (test/foundation/authorization-matrix.test.ts writes this table; do not edit) -->';
export const TABLE_END = '<!-- authorization-matrix:end -->';

/** The rules and the table as docs/security.md prints them, between the two markers. */
export function renderTable(rows: readonly TableRow[]): string {
  const header = ['Operation', 'Aimed at', 'Rule', ...CALLERS.map((c) => CALLER_HEADINGS[c]), 'portal session of tenant A'];
  const lines = [
    TABLE_START,
    '',
    '| Rule | Who |',
    '| --- | --- |',
    ...Object.entries(RULES).map(([name, rule]) => `| \`${name}\` | ${rule.says} |`),
    '',
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) =>
      [
        row.operation,
        row.target,
        `\`${row.rule}\``,
        ...[...RULES[row.rule].cells, portalCell(row.rule, row.portal)].map((cell) => (cell === 'ok' ? row.ok : String(cell))),
      ]
        .join(' | ')
        .replace(/^/, '| ')
        .concat(' |'),
    ),
    '',
    TABLE_END,
  ];
  return lines.join('\n');
}
