/**
 * Directory sync (SCIM 2.0): the base URL an identity provider is given, and the tenant's bearer
 * tokens: issued and shown once, listed with their last use, revoked.
 */
import { useState } from 'preact/hooks';
import { call, type ApiError, type Clients, type IssuedScimToken, type ScimActivity, type ScimToken } from '../api.ts';
import { asApiError, Badge, Button, Empty, ErrorNotice, Load, Notice, Secret, Time, useLoad } from '../ui.tsx';

export function ScimScreen({ clients, tenantId }: { clients: Clients; tenantId: string }) {
  const tenant = { params: { path: { tenantId } } };
  const [loaded, reload] = useLoad(() =>
    call(clients.admin.GET('/api/v1/admin/tenants/{tenantId}/scim-tokens', { params: { path: { tenantId }, query: { size: 100 } } })),
  );
  const [issued, setIssued] = useState<IssuedScimToken>();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiError>();
  const issue = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      setIssued(await call(clients.admin.POST('/api/v1/admin/tenants/{tenantId}/scim-tokens', tenant)));
      reload();
    } catch (error) {
      setFailure(asApiError(error));
    } finally {
      setBusy(false);
    }
  };
  const base = new URL('/scim/v2', clients.baseUrl).toString();
  return (
    <section aria-labelledby="scim-title">
      <h1 id="scim-title">Directory sync (SCIM)</h1>
      <p class="lead">
        Your identity provider creates, updates and deactivates people and groups here through SCIM 2.0. Give it this base URL and a token.
      </p>
      <Secret label="SCIM base URL" value={base} />
      <div class="section-head">
        <h2>Tokens</h2>
        <Button busy={busy} onClick={issue}>
          Create token
        </Button>
      </div>
      {issued ? (
        <Notice kind="success" title="Token created">
          <p>Copy it into your identity provider now: it is not shown again.</p>
          <Secret label="SCIM token" value={issued.token} />
        </Notice>
      ) : null}
      {failure ? <ErrorNotice error={failure} /> : null}
      <Load loaded={loaded} retry={reload}>
        {(page) =>
          page.content.length === 0 ? (
            <Empty title="No tokens yet">
              <p>Create a token to connect your identity provider.</p>
            </Empty>
          ) : (
            <ul class="cards">
              {page.content.map((token) => (
                <TokenRow key={token.id} clients={clients} tenantId={tenantId} token={token} onRevoked={reload} />
              ))}
            </ul>
          )
        }
      </Load>
      <Activity clients={clients} tenantId={tenantId} onRefresh={reload} />
    </section>
  );
}

/** What a call did, as done and as refused. */
const OPERATION_LABELS: Record<ScimActivity['operation'], [string, string]> = {
  list: ['Listed', 'Could not list'],
  get: ['Read', 'Could not read'],
  create: ['Created', 'Could not create'],
  replace: ['Replaced', 'Could not replace'],
  patch: ['Updated', 'Could not update'],
  delete: ['Deleted', 'Could not delete'],
  other: ['Called', 'Could not call'],
};

/** The identity provider's recent SCIM calls, newest first, so an administrator sees them arrive; Refresh also reloads the tokens' last use. */
function Activity({ clients, tenantId, onRefresh }: { clients: Clients; tenantId: string; onRefresh: () => void }) {
  const [loaded, reload] = useLoad(() =>
    call(clients.admin.GET('/api/v1/admin/tenants/{tenantId}/scim-activity', { params: { path: { tenantId }, query: { size: 20 } } })),
  );
  return (
    <section class="panel" aria-labelledby="activity-title">
      <div class="section-head">
        <h2 id="activity-title">Recent activity</h2>
        <Button
          kind="secondary"
          onClick={() => {
            reload();
            onRefresh();
          }}
        >
          Refresh
        </Button>
      </div>
      <Load loaded={loaded} retry={reload}>
        {(page) =>
          page.content.length === 0 ? (
            <Empty title="No calls yet">
              <p>Once your identity provider uses a token, its calls appear here.</p>
            </Empty>
          ) : (
            <ol class="attempts">
              {page.content.map((entry) => (
                <li key={entry.id} class="attempt">
                  <div class="attempt-line">
                    <Badge tone={entry.outcome === 'success' ? 'good' : 'bad'}>
                      {entry.outcome === 'success' ? `HTTP ${entry.status}` : `refused ${entry.status}`}
                    </Badge>
                    <span>
                      {OPERATION_LABELS[entry.operation][entry.outcome === 'success' ? 0 : 1]} {entry.resourceType ?? 'an unknown endpoint'}
                      {entry.resourceLabel ? (
                        <>
                          {' '}
                          <code>{entry.resourceLabel}</code>
                        </>
                      ) : null}
                    </span>
                    <Time value={entry.at} />
                  </div>
                  {entry.outcome === 'failure' && (entry.detail || entry.scimType) ? (
                    <p class="muted">
                      {entry.scimType ? `${entry.scimType}: ` : ''}
                      {entry.detail}
                    </p>
                  ) : null}
                </li>
              ))}
            </ol>
          )
        }
      </Load>
    </section>
  );
}

function TokenRow({
  clients,
  tenantId,
  token,
  onRevoked,
}: {
  clients: Clients;
  tenantId: string;
  token: ScimToken;
  onRevoked: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiError>();
  const revoke = async () => {
    setBusy(true);
    try {
      await call(
        clients.admin.DELETE('/api/v1/admin/tenants/{tenantId}/scim-tokens/{tokenId}', {
          params: { path: { tenantId, tokenId: token.id } },
        }),
      );
      onRevoked();
    } catch (error) {
      setFailure(asApiError(error));
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  return (
    <li class="card">
      <div class="card-main">
        <p class="card-title">
          Token <code>{token.id.slice(0, 8)}</code>
        </p>
        <p class="muted">
          Created <Time value={token.createdAt} /> · last used <Time value={token.lastUsedAt} />
        </p>
        {failure ? <ErrorNotice error={failure} /> : null}
      </div>
      {token.revokedAt ? (
        <Badge tone="neutral">revoked</Badge>
      ) : confirming ? (
        <div class="actions">
          <Button kind="danger" busy={busy} onClick={revoke}>
            Revoke now
          </Button>
          <Button kind="secondary" onClick={() => setConfirming(false)}>
            Keep
          </Button>
        </div>
      ) : (
        <>
          <Badge tone="good">active</Badge>
          <Button kind="secondary" onClick={() => setConfirming(true)} aria-label={`Revoke token ${token.id.slice(0, 8)}`}>
            Revoke
          </Button>
        </>
      )}
    </li>
  );
}
