/**
 * Domains: claim one, publish the TXT record it shows, "check now" runs the verification and says
 * what it found; or have a code mailed to an administrator mailbox of the domain. A verified domain
 * routes its people's sign-ins to this organization and may require single sign-on.
 */
import { useState } from 'preact/hooks';
import { ApiError, call, type Clients, type Domain } from '../api.ts';
import { asApiError, Badge, Button, Empty, ErrorNotice, Field, Load, Notice, Secret, Time, useLoad } from '../ui.tsx';

export function DomainsScreen({ clients, tenantId }: { clients: Clients; tenantId: string }) {
  const [loaded, reload] = useLoad(() =>
    call(clients.admin.GET('/api/v1/admin/tenants/{tenantId}/domains', { params: { path: { tenantId } } })),
  );
  return (
    <section aria-labelledby="domains-title">
      <h1 id="domains-title">Domains</h1>
      <p class="lead">Verify the e-mail domains of your organization, so that its people sign in here through your identity provider.</p>
      <AddDomain clients={clients} tenantId={tenantId} onAdded={reload} />
      <Load loaded={loaded} retry={reload}>
        {(list) =>
          list.content.length === 0 ? (
            <Empty title="No domains yet">
              <p>Add your organization's e-mail domain above.</p>
            </Empty>
          ) : (
            <ul class="cards cards-stacked">
              {list.content.map((domain) => (
                <DomainCard key={domain.domain} clients={clients} tenantId={tenantId} domain={domain} onChanged={reload} />
              ))}
            </ul>
          )
        }
      </Load>
    </section>
  );
}

function AddDomain({ clients, tenantId, onAdded }: { clients: Clients; tenantId: string; onAdded: () => void }) {
  const [domain, setDomain] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiError>();
  const errors = failure?.fieldErrors() ?? {};
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      await call(
        clients.admin.POST('/api/v1/admin/tenants/{tenantId}/domains', { params: { path: { tenantId } }, body: { domain: domain.trim() } }),
      );
      setDomain('');
      onAdded();
    } catch (error) {
      const refused = asApiError(error);
      // A conflict (claimed elsewhere, or already here) is about the domain typed: show it there.
      setFailure(
        refused.status === 409
          ? new ApiError(409, { ...refused.problem, errors: [{ field: '/domain', message: refused.message }] })
          : refused,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="inline-form" onSubmit={submit} noValidate>
      <Field label="Domain" hint="Such as example.com" name="domain" value={domain} required error={errors.domain} onValue={setDomain} />
      <Button type="submit" busy={busy}>
        Add domain
      </Button>
      {failure && !Object.keys(errors).length ? <ErrorNotice error={failure} /> : null}
    </form>
  );
}

function DomainCard({
  clients,
  tenantId,
  domain,
  onChanged,
}: {
  clients: Clients;
  tenantId: string;
  domain: Domain;
  onChanged: () => void;
}) {
  const path = { params: { path: { tenantId, domain: domain.domain } } };
  const [busy, setBusy] = useState<'check' | 'mail' | 'code' | 'enforce'>();
  const [failed, setFailed] = useState<{ what: 'check' | 'mail' | 'code' | 'enforce'; error: ApiError }>();
  const failure = failed?.error;
  const [mailTo, setMailTo] = useState(`admin@${domain.domain}`);
  const [mailed, setMailed] = useState<{ sentTo: string; expiresAt: string }>();
  const [code, setCode] = useState('');
  const run = async (what: 'check' | 'mail' | 'code' | 'enforce', action: () => Promise<unknown>) => {
    setBusy(what);
    setFailed(undefined);
    try {
      await action();
      if (what !== 'mail') onChanged();
    } catch (error) {
      setFailed({ what, error: asApiError(error) });
    } finally {
      setBusy(undefined);
    }
  };
  const errors = failure?.fieldErrors() ?? {};
  const verified = domain.status === 'verified';
  return (
    <li class="card card-column">
      <div class="section-head">
        <h2>{domain.domain}</h2>
        <Badge tone={verified ? 'good' : 'warn'}>{verified ? 'verified' : 'pending'}</Badge>
      </div>
      {verified ? (
        <>
          <p class="muted">
            Verified <Time value={domain.verifiedAt} />.
          </p>
          {domain.enforceSso ? (
            <p>
              <Badge tone="good">single sign-on required</Badge> People of {domain.domain} sign in through your identity provider only.
            </p>
          ) : (
            <EnforcementImpact clients={clients} tenantId={tenantId} domain={domain.domain} />
          )}
          <div class="actions">
            <Button
              kind={domain.enforceSso ? 'secondary' : 'primary'}
              busy={busy === 'enforce'}
              onClick={() =>
                run('enforce', () =>
                  call(
                    clients.admin.PATCH('/api/v1/admin/tenants/{tenantId}/domains/{domain}', {
                      ...path,
                      body: { enforceSso: !domain.enforceSso },
                    }),
                  ),
                )
              }
            >
              {domain.enforceSso ? 'Allow passwords again' : 'Require single sign-on'}
            </Button>
          </div>
        </>
      ) : (
        <>
          <p>Publish this TXT record in your DNS, then check it.</p>
          <Secret label="Name" value={domain.txtRecordName} />
          <Secret label="Value" value={domain.txtRecordValue} />
          <div class="actions">
            <Button
              busy={busy === 'check'}
              onClick={() =>
                run('check', () =>
                  call(
                    clients.admin.POST('/api/v1/admin/tenants/{tenantId}/domains/{domain}/verify', { ...path, body: { method: 'dns' } }),
                  ),
                )
              }
            >
              Check now
            </Button>
          </div>
          <details>
            <summary>No access to DNS? Verify by e-mail instead</summary>
            <form
              class="inline-form"
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                void run('mail', async () =>
                  setMailed(
                    await call(
                      clients.admin.POST('/api/v1/admin/tenants/{tenantId}/domains/{domain}/verification-mail', {
                        ...path,
                        body: { to: mailTo },
                      }),
                    ),
                  ),
                );
              }}
            >
              <Field label="Administrator mailbox" name="to" value={mailTo} error={errors.to} onValue={setMailTo} />
              <Button type="submit" kind="secondary" busy={busy === 'mail'}>
                Send code
              </Button>
            </form>
            {mailed ? (
              <form
                class="inline-form"
                noValidate
                onSubmit={(e) => {
                  e.preventDefault();
                  void run('code', () =>
                    call(
                      clients.admin.POST('/api/v1/admin/tenants/{tenantId}/domains/{domain}/verify', {
                        ...path,
                        body: { method: 'mail', code: code.trim() },
                      }),
                    ),
                  );
                }}
              >
                <Field
                  label={`Code sent to ${mailed.sentTo}`}
                  name="code"
                  value={code}
                  error={errors.code}
                  autoComplete="one-time-code"
                  onValue={setCode}
                />
                <Button type="submit" busy={busy === 'code'}>
                  Verify
                </Button>
              </form>
            ) : null}
          </details>
        </>
      )}
      {failure && !Object.keys(errors).length ? (
        // A check that finds no record (409) is an answer, not a failure: it says what it found.
        (failed.what === 'check' || failed.what === 'code') && failure.status === 409 ? (
          <Notice kind="warning" title="Not verified yet">
            <p>{failure.message}</p>
          </Notice>
        ) : (
          <ErrorNotice error={failure} />
        )
      ) : null}
    </li>
  );
}

/** Before enforcement: how many accounts at the domain sign in with a password today. */
function EnforcementImpact({ clients, tenantId, domain }: { clients: Clients; tenantId: string; domain: string }) {
  const [loaded, reload] = useLoad(
    () =>
      call(
        clients.admin.GET('/api/v1/admin/tenants/{tenantId}/domains/{domain}/enforcement-impact', {
          params: { path: { tenantId, domain } },
        }),
      ),
    [domain],
  );
  return (
    <Load loaded={loaded} retry={reload}>
      {({ passwordAccounts }) => (
        <p>
          People of {domain} may still sign in with a password.{' '}
          {passwordAccounts === 0
            ? 'No account there has a password: requiring single sign-on changes nobody’s sign-in.'
            : `${passwordAccounts} account${passwordAccounts === 1 ? ' has' : 's have'} a password: requiring single sign-on makes ${passwordAccounts === 1 ? 'it' : 'them'} sign in through your provider.`}{' '}
          Require it once a test sign-in has worked.
        </p>
      )}
    </Load>
  );
}
