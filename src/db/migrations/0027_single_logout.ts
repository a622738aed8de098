import { sql, type Kysely } from 'kysely';

/**
 * Single logout (issue 46, item 4):
 * - `sessions.idp_id_token_sealed`: the ID token of an OpenID Connect sign-in, sealed under
 *   SECRETS_KEY (bound to the tenant and the provider's subject), for the `id_token_hint` of the
 *   provider's end-session redirect at logout. A credential of the user at this client: never stored
 *   in the clear, and gone with the session row. SAML needs nothing new: `idp_subject` (NameID) and
 *   `idp_session_id` (SessionIndex) are what a LogoutRequest names.
 * - `sso_requests.protocol` 'saml-logout': a LogoutRequest this service sent, whose LogoutResponse
 *   must name it (InResponseTo), once, on any instance; kept apart from sign-ins so that neither
 *   kind of answer can consume the other's request.
 * - `sso_seen_ids.kind` 'saml-logout-request': a provider's LogoutRequest ids already acted on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sessions add column idp_id_token_sealed text`.execute(db);
  await sql`
    alter table sso_requests
      drop constraint sso_requests_protocol_check,
      add constraint sso_requests_protocol_check check (protocol in ('saml', 'oidc', 'saml-logout'))`.execute(db);
  await sql`
    alter table sso_seen_ids
      drop constraint sso_seen_ids_kind_check,
      add constraint sso_seen_ids_kind_check check (kind in ('saml-assertion', 'oidc-logout-token', 'saml-logout-request'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from sso_seen_ids where kind = 'saml-logout-request'`.execute(db);
  await sql`
    alter table sso_seen_ids
      drop constraint sso_seen_ids_kind_check,
      add constraint sso_seen_ids_kind_check check (kind in ('saml-assertion', 'oidc-logout-token'))`.execute(db);
  await sql`delete from sso_requests where protocol = 'saml-logout'`.execute(db);
  await sql`
    alter table sso_requests
      drop constraint sso_requests_protocol_check,
      add constraint sso_requests_protocol_check check (protocol in ('saml', 'oidc'))`.execute(db);
  await sql`alter table sessions drop column idp_id_token_sealed`.execute(db);
}
