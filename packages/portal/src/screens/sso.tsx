/**
 * Single sign-on, as the interface document's set-up steps in order: protocol, domain, connection
 * (metadata URL, metadata XML or fields; or the OpenID issuer and client), attribute mapping beside
 * what the last test sign-in received, groups to roles, a test sign-in in a window of its own, and
 * enforcement. Every step reads the tenant's state from the server, so leaving and coming back (or
 * another administrator's link) resumes where the set-up stands.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  ApiError,
  call,
  type Clients,
  type Domain,
  type IdentityProvider,
  type IdentityProviderInput,
  type LastTestSignIn,
} from '../api.ts';
import { asApiError, Badge, Button, Choice, Empty, ErrorNotice, Field, Load, Notice, Secret, Time, useLoad } from '../ui.tsx';

type Protocol = 'saml' | 'oidc';

/** A read that 404s when there is nothing yet: null instead of an error. */
async function orNull<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

interface State {
  provider: IdentityProvider | null;
  domains: Domain[];
  lastTest: LastTestSignIn | null;
}

export function SsoScreen({ clients, tenantId, onDomains }: { clients: Clients; tenantId: string; onDomains: () => void }) {
  const path = { params: { path: { tenantId } } };
  const [loaded, reload] = useLoad(async (): Promise<State> => {
    const [provider, domains, lastTest] = await Promise.all([
      orNull(call(clients.admin.GET('/api/v1/admin/tenants/{tenantId}/identity-provider', path))),
      call(clients.admin.GET('/api/v1/admin/tenants/{tenantId}/domains', path)),
      orNull(call(clients.admin.GET('/api/v1/admin/tenants/{tenantId}/identity-provider/test-sign-in', path))),
    ]);
    return { provider, domains: domains.content, lastTest };
  }, [tenantId]);
  return (
    <section aria-labelledby="sso-title">
      <h1 id="sso-title">Single sign-on</h1>
      <p class="lead">
        Connect your identity provider so that your people sign in here with the accounts they already have. Each step is saved as you go.
      </p>
      <Load loaded={loaded} retry={reload}>
        {(state) => <Steps clients={clients} tenantId={tenantId} state={state} reload={reload} onDomains={onDomains} />}
      </Load>
    </section>
  );
}

function Steps({
  clients,
  tenantId,
  state,
  reload,
  onDomains,
}: {
  clients: Clients;
  tenantId: string;
  state: State;
  reload: () => void;
  onDomains: () => void;
}) {
  const { provider, domains, lastTest } = state;
  const [protocol, setProtocol] = useState<Protocol>(provider?.protocol ?? 'saml');
  const verified = domains.filter((domain) => domain.status === 'verified');
  const tested = lastTest !== null && lastTest.outcome !== 'refused';
  // The first step not done yet is the one to work on.
  const done = [
    true,
    verified.length > 0,
    provider !== null,
    provider !== null,
    provider !== null,
    tested,
    verified.some((d) => d.enforceSso),
  ];
  const current = done.indexOf(false);
  const step = (index: number, title: string, body: ComponentChildren, status?: string) => (
    <li class={index === current ? 'step step-current' : 'step'} aria-current={index === current ? 'step' : undefined}>
      <div class="step-head">
        <h2>
          {index + 1}. {title}
        </h2>
        <Badge tone={done[index] ? 'good' : index === current ? 'warn' : 'neutral'}>
          {status ?? (done[index] ? 'done' : index === current ? 'next' : 'to do')}
        </Badge>
      </div>
      {body}
    </li>
  );
  return (
    <ol class="steps">
      {step(
        0,
        'Protocol',
        <>
          <Choice
            legend="How your identity provider connects"
            name="protocol"
            value={protocol}
            onChange={setProtocol}
            options={[
              { value: 'saml', label: 'SAML 2.0', hint: 'Entra ID, ADFS, Okta, Google Workspace, OneLogin…' },
              { value: 'oidc', label: 'OpenID Connect', hint: 'Okta, Entra ID, Auth0, Keycloak…' },
            ]}
          />
          <ServiceProvider clients={clients} tenantId={tenantId} protocol={protocol} provider={provider} />
        </>,
        provider ? (provider.protocol === 'saml' ? 'SAML 2.0' : 'OpenID Connect') : undefined,
      )}
      {step(
        1,
        'Domain',
        <>
          {verified.length ? (
            <p>
              Verified: <strong>{verified.map((d) => d.domain).join(', ')}</strong>. People with these addresses sign in through your
              provider.
            </p>
          ) : (
            <p>Verify your e-mail domain, so that sign-ins with its addresses come to your organization.</p>
          )}
          {domains.length > verified.length ? (
            <p class="muted">
              Waiting for verification:{' '}
              {domains
                .filter((d) => d.status !== 'verified')
                .map((d) => d.domain)
                .join(', ')}
            </p>
          ) : null}
          <Button kind="secondary" onClick={onDomains}>
            {verified.length ? 'Manage domains' : 'Verify a domain'}
          </Button>
        </>,
      )}
      {step(2, 'Connection', <Connection clients={clients} tenantId={tenantId} protocol={protocol} provider={provider} onSaved={reload} />)}
      {step(
        3,
        'Attributes',
        provider ? (
          <Attributes clients={clients} tenantId={tenantId} provider={provider} lastTest={lastTest} onSaved={reload} />
        ) : (
          <p class="muted">Connect your provider first.</p>
        ),
      )}
      {step(
        4,
        'Groups and roles',
        provider ? (
          <Roles clients={clients} tenantId={tenantId} provider={provider} onSaved={reload} />
        ) : (
          <p class="muted">Connect your provider first.</p>
        ),
      )}
      {step(
        5,
        'Test sign-in',
        provider ? (
          <TestSignIn clients={clients} tenantId={tenantId} lastTest={lastTest} onResult={reload} />
        ) : (
          <p class="muted">Connect your provider first.</p>
        ),
        lastTest?.outcome === 'refused' ? 'refused' : undefined,
      )}
      {step(
        6,
        'Require single sign-on',
        <>
          <p>
            Once a test sign-in works, require single sign-on for a verified domain: its people can then no longer sign in with a password.
          </p>
          <Button kind="secondary" onClick={onDomains} disabled={!verified.length}>
            Choose domains to enforce
          </Button>
        </>,
        verified.some((d) => d.enforceSso) ? 'enforced' : undefined,
      )}
    </ol>
  );
}

/** What to register at the provider: the server's answer once a provider exists, else its URLs by pattern. */
function ServiceProvider({
  clients,
  tenantId,
  protocol,
  provider,
}: {
  clients: Clients;
  tenantId: string;
  protocol: Protocol;
  provider: IdentityProvider | null;
}) {
  const base = clients.baseUrl.replace(/\/+$/, '');
  const known = provider?.protocol === protocol ? provider.serviceProvider : undefined;
  if (protocol === 'saml')
    return (
      <div>
        <p>Register this service provider at your identity provider, or give it the metadata URL:</p>
        <Secret label="Metadata URL and entity ID" value={known?.entityId ?? `${base}/saml/metadata/${tenantId}`} />
        <Secret label="Assertion consumer service (ACS) URL" value={known?.acsUrl ?? `${base}/auth/saml/${tenantId}/callback`} />
        <Secret label="Single logout URL" value={`${base}/auth/saml/${tenantId}/slo`} />
      </div>
    );
  return (
    <div>
      <p>Register an application (a confidential web client) at your provider with:</p>
      <Secret label="Redirect URI" value={known?.redirectUri ?? `${base}/auth/oidc/${tenantId}/callback`} />
      <Secret label="Back-channel logout URI" value={known?.backchannelLogoutUri ?? `${base}/auth/oidc/${tenantId}/backchannel-logout`} />
      <Secret label="Post-logout redirect URI" value={`${base}/`} />
    </div>
  );
}

/** The provider's settings as an input, so that a later step can save its part and keep the rest. */
function inputOf(provider: IdentityProvider): IdentityProviderInput {
  const common = { attributeMapping: provider.attributeMapping, roleMapping: provider.roleMapping };
  if (provider.protocol === 'oidc' && provider.oidc) {
    const { issuer, clientId, discoveryUrl, scopes } = provider.oidc;
    return { protocol: 'oidc', oidc: { issuer, clientId, discoveryUrl, scopes }, ...common };
  }
  const saml = provider.saml!;
  const switches = {
    allowIdpInitiated: saml.allowIdpInitiated,
    signAuthnRequests: saml.signAuthnRequests,
    requireEncryptedAssertions: saml.requireEncryptedAssertions,
  };
  if (saml.metadataUrl) return { protocol: 'saml', metadataUrl: saml.metadataUrl, ...switches, ...common };
  const { entityId, ssoUrl, sloUrl, certificate, certificateBackup, nameIdFormat, signedResponses } = saml;
  return {
    protocol: 'saml',
    saml: { entityId, ssoUrl, sloUrl, certificate, certificateBackup, nameIdFormat, signedResponses },
    ...switches,
    ...common,
  };
}

/** Saves `input`; the error of a field the server named is shown there, any other above the button. */
function useSave(clients: Clients, tenantId: string, onSaved: () => void) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiError>();
  const [saved, setSaved] = useState(false);
  const save = async (input: IdentityProviderInput) => {
    setBusy(true);
    setFailure(undefined);
    setSaved(false);
    try {
      await call(clients.admin.PUT('/api/v1/admin/tenants/{tenantId}/identity-provider', { params: { path: { tenantId } }, body: input }));
      setSaved(true);
      onSaved();
    } catch (error) {
      setFailure(asApiError(error));
    } finally {
      setBusy(false);
    }
  };
  return { busy, failure, saved, save, errors: failure?.fieldErrors() ?? {} };
}

type SamlSource = 'metadataUrl' | 'metadataXml' | 'fields';

function Connection({
  clients,
  tenantId,
  protocol,
  provider,
  onSaved,
}: {
  clients: Clients;
  tenantId: string;
  protocol: Protocol;
  provider: IdentityProvider | null;
  onSaved: () => void;
}) {
  const same = provider?.protocol === protocol ? provider : null;
  const saml = same?.saml;
  const [source, setSource] = useState<SamlSource>(saml ? (saml.metadataUrl ? 'metadataUrl' : 'fields') : 'metadataUrl');
  const [metadataUrl, setMetadataUrl] = useState(saml?.metadataUrl ?? '');
  const [metadataXml, setMetadataXml] = useState('');
  const [entityId, setEntityId] = useState(saml?.entityId ?? '');
  const [ssoUrl, setSsoUrl] = useState(saml?.ssoUrl ?? '');
  const [certificate, setCertificate] = useState(saml?.certificate ?? '');
  const [issuer, setIssuer] = useState(same?.oidc?.issuer ?? '');
  const [clientId, setClientId] = useState(same?.oidc?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [discoveryUrl, setDiscoveryUrl] = useState(
    same?.oidc && same.oidc.discoveryUrl !== `${same.oidc.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`
      ? same.oidc.discoveryUrl
      : '',
  );
  const { busy, failure, saved, save, errors } = useSave(clients, tenantId, onSaved);
  const common = provider ? { attributeMapping: provider.attributeMapping, roleMapping: provider.roleMapping } : {};
  // A refusal that names no field (the provider did not answer, the metadata does not parse) is about
  // the value the administrator just gave: shown at that field.
  const unplaced = failure && !Object.keys(errors).length ? failure.message : undefined;
  const at = (field: string, primary: boolean) => errors[field] ?? (primary ? unplaced : undefined);
  const submit = (event: Event) => {
    event.preventDefault();
    if (protocol === 'oidc') {
      void save({
        protocol: 'oidc',
        oidc: { issuer: issuer.trim(), clientId: clientId.trim(), ...(clientSecret ? { clientSecret } : {}) },
        ...common,
      });
      return;
    }
    const switches = saml
      ? {
          allowIdpInitiated: saml.allowIdpInitiated,
          signAuthnRequests: saml.signAuthnRequests,
          requireEncryptedAssertions: saml.requireEncryptedAssertions,
        }
      : {};
    if (source === 'metadataUrl') void save({ protocol: 'saml', metadataUrl: metadataUrl.trim(), ...switches, ...common });
    else if (source === 'metadataXml') void save({ protocol: 'saml', metadataXml, ...switches, ...common });
    else void save({ protocol: 'saml', saml: { entityId: entityId.trim(), ssoUrl: ssoUrl.trim(), certificate }, ...switches, ...common });
  };
  return (
    <form onSubmit={submit} noValidate>
      {same ? (
        <p>
          Connected <Time value={same.updatedAt} />
          {saml?.metadataUrl ? ' from its metadata URL, read again twice a day' : ''}. Save again to change it.
        </p>
      ) : provider ? (
        <Notice kind="warning" title={`Your organization is connected with ${provider.protocol === 'saml' ? 'SAML' : 'OpenID Connect'}`}>
          <p>Saving this replaces that connection.</p>
        </Notice>
      ) : null}
      {protocol === 'saml' ? (
        <>
          <Choice
            legend="What your provider gives you"
            name="saml-source"
            value={source}
            onChange={setSource}
            options={[
              { value: 'metadataUrl', label: 'A metadata URL', hint: 'kept up to date automatically' },
              { value: 'metadataXml', label: 'A metadata file' },
              { value: 'fields', label: 'A sign-on URL and a certificate' },
            ]}
          />
          {source === 'metadataUrl' ? (
            <Field
              label="Metadata URL"
              type="url"
              name="metadataUrl"
              value={metadataUrl}
              onValue={setMetadataUrl}
              error={at('metadataUrl', true)}
            />
          ) : null}
          {source === 'metadataXml' ? (
            <Field
              label="Metadata XML"
              hint="Paste the whole file, starting with <EntityDescriptor"
              name="metadataXml"
              rows={8}
              value={metadataXml}
              onValue={setMetadataXml}
              error={at('metadataXml', true)}
            />
          ) : null}
          {source === 'fields' ? (
            <>
              <Field
                label="Identity provider entity ID (issuer)"
                name="entityId"
                value={entityId}
                onValue={setEntityId}
                error={at('saml.entityId', false) ?? errors.saml}
              />
              <Field
                label="Single sign-on URL"
                type="url"
                name="ssoUrl"
                value={ssoUrl}
                onValue={setSsoUrl}
                error={at('saml.ssoUrl', false)}
              />
              <Field
                label="Signing certificate (PEM)"
                name="certificate"
                rows={6}
                value={certificate}
                onValue={setCertificate}
                error={at('saml.certificate', true)}
              />
            </>
          ) : null}
        </>
      ) : (
        <>
          <Field
            label="Issuer URL"
            type="url"
            hint="Such as https://login.example.com/tenant-id/v2.0"
            name="issuer"
            value={issuer}
            onValue={setIssuer}
            error={at('oidc.issuer', true) ?? (discoveryUrl.trim() ? undefined : errors['oidc.discoveryUrl'])}
          />
          <Field label="Client ID" name="clientId" value={clientId} onValue={setClientId} error={at('oidc.clientId', false)} />
          <Field
            label="Client secret"
            type="password"
            autoComplete="off"
            hint={same?.oidc ? 'Stored encrypted; leave empty to keep it.' : undefined}
            name="clientSecret"
            value={clientSecret}
            onValue={setClientSecret}
            error={at('oidc.clientSecret', false)}
          />
          <Field
            label="Discovery URL (optional)"
            type="url"
            hint="Only if your provider's discovery document is not at the issuer's /.well-known/openid-configuration"
            name="discoveryUrl"
            value={discoveryUrl}
            onValue={setDiscoveryUrl}
            // The server names the discovery URL it used; only one typed here is this field's.
            error={discoveryUrl.trim() ? at('oidc.discoveryUrl', false) : undefined}
          />
        </>
      )}
      {saved ? <Notice kind="success" title="Connection saved" /> : null}
      <div class="actions">
        <Button type="submit" busy={busy}>
          Save connection
        </Button>
      </div>
    </form>
  );
}

const MAPPED_FIELDS = [
  ['email', 'E-mail address'],
  ['firstName', 'First name'],
  ['lastName', 'Last name'],
  ['groups', 'Groups'],
  ['department', 'Department (optional)'],
] as const;

function Attributes({
  clients,
  tenantId,
  provider,
  lastTest,
  onSaved,
}: {
  clients: Clients;
  tenantId: string;
  provider: IdentityProvider;
  lastTest: LastTestSignIn | null;
  onSaved: () => void;
}) {
  const [mapping, setMapping] = useState<Record<string, string>>({ ...provider.attributeMapping });
  const { busy, failure, saved, save, errors } = useSave(clients, tenantId, onSaved);
  const received = Object.entries(lastTest?.attributes ?? {});
  return (
    <div class="two-columns">
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const attributeMapping = Object.fromEntries(
            Object.entries(mapping)
              .filter(([, value]) => value.trim())
              .map(([key, value]) => [key, value.trim()]),
          );
          void save({ ...inputOf(provider), attributeMapping });
        }}
      >
        <p>Which attribute (SAML) or claim (OpenID Connect) of your provider holds each field:</p>
        {MAPPED_FIELDS.map(([key, label]) => (
          <Field
            key={key}
            label={label}
            name={key}
            value={mapping[key] ?? ''}
            onValue={(value) => setMapping({ ...mapping, [key]: value })}
            error={errors[`attributeMapping.${key}`]}
          />
        ))}
        {failure && !Object.keys(errors).length ? <ErrorNotice error={failure} /> : null}
        {saved ? <Notice kind="success" title="Attribute mapping saved" /> : null}
        <Button type="submit" busy={busy}>
          Save attributes
        </Button>
      </form>
      <div>
        <h3>Received in the last test sign-in</h3>
        {received.length ? (
          <table class="received">
            <caption class="visually-hidden">Attributes your provider sent</caption>
            <thead>
              <tr>
                <th scope="col">Attribute</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {received.map(([name, value]) => (
                <tr key={name}>
                  <td>
                    <code>{name}</code>
                  </td>
                  <td>{Array.isArray(value) ? value.join(', ') : String(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Empty title="Nothing received yet">
            <p>Run a test sign-in (step 6): the attributes your provider sends appear here.</p>
          </Empty>
        )}
      </div>
    </div>
  );
}

function Roles({
  clients,
  tenantId,
  provider,
  onSaved,
}: {
  clients: Clients;
  tenantId: string;
  provider: IdentityProvider;
  onSaved: () => void;
}) {
  const [rows, setRows] = useState<{ group: string; role: string }[]>(() => {
    const existing = Object.entries(provider.roleMapping).map(([group, role]) => ({ group, role }));
    return existing.length ? existing : [{ group: '', role: 'ADMIN' }];
  });
  const { busy, failure, saved, save, errors } = useSave(clients, tenantId, onSaved);
  const update = (index: number, change: Partial<{ group: string; role: string }>) =>
    setRows(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const roleMapping = Object.fromEntries(
          rows.filter((row) => row.group.trim()).map((row) => [row.group.trim(), row.role.trim().toUpperCase()]),
        );
        void save({ ...inputOf(provider), roleMapping });
      }}
    >
      <p>Members of a group of your provider get the role beside it here (such as ADMIN). Everyone else signs in as a user.</p>
      {rows.map((row, index) => (
        <div class="mapping-row" key={index}>
          <Field label={`Group ${index + 1}`} name={`group-${index}`} value={row.group} onValue={(group) => update(index, { group })} />
          <Field
            label={`Role of group ${index + 1}`}
            hint="Such as ADMIN"
            name={`role-${index}`}
            value={row.role}
            onValue={(role) => update(index, { role })}
            error={errors[`roleMapping.${row.group.trim()}`]}
          />
          <Button kind="secondary" onClick={() => setRows(rows.filter((_, i) => i !== index))} aria-label={`Remove group ${index + 1}`}>
            Remove
          </Button>
        </div>
      ))}
      {failure && !Object.keys(errors).length ? <ErrorNotice error={failure} /> : null}
      {saved ? <Notice kind="success" title="Roles saved" /> : null}
      <div class="actions">
        <Button kind="secondary" onClick={() => setRows([...rows, { group: '', role: 'ADMIN' }])}>
          Add a group
        </Button>
        <Button type="submit" busy={busy}>
          Save roles
        </Button>
      </div>
    </form>
  );
}

const POLL_MS = 1500;
const TEST_TTL_MS = 10 * 60_000;

function TestSignIn({
  clients,
  tenantId,
  lastTest,
  onResult,
}: {
  clients: Clients;
  tenantId: string;
  lastTest: LastTestSignIn | null;
  onResult: () => void;
}) {
  const path = { params: { path: { tenantId } } };
  const [waiting, setWaiting] = useState<{ since: number; window: Window | null }>();
  const [failure, setFailure] = useState<ApiError>();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  // While a test runs in its window, the latest report is read until a newer one arrives.
  useEffect(() => {
    if (!waiting) return;
    const poll = async () => {
      try {
        const report = await orNull(call(clients.admin.GET('/api/v1/admin/tenants/{tenantId}/identity-provider/test-sign-in', path)));
        if (report && Date.parse(report.at) >= waiting.since) {
          waiting.window?.close();
          setWaiting(undefined);
          onResult();
          return;
        }
      } catch (error) {
        setFailure(asApiError(error));
        setWaiting(undefined);
        return;
      }
      if (Date.now() - waiting.since > TEST_TTL_MS) setWaiting(undefined);
      else timer.current = setTimeout(() => void poll(), POLL_MS);
    };
    timer.current = setTimeout(() => void poll(), POLL_MS);
    return () => clearTimeout(timer.current);
    // Polling restarts only for a new test.
  }, [waiting]);
  const start = async () => {
    setFailure(undefined);
    // The window opens at once, inside the click, so that no popup blocker stops it; it is sent to
    // the provider when the URL arrives.
    const opened = window.open('', 'schemaforge-test-sign-in', 'popup,width=640,height=760');
    try {
      const since = Date.now() - 1000;
      const { url } = await call(clients.admin.POST('/api/v1/admin/tenants/{tenantId}/identity-provider/test-sign-in', path));
      if (opened) opened.location.href = url;
      else window.open(url, '_blank');
      setWaiting({ since, window: opened });
    } catch (error) {
      opened?.close();
      setFailure(asApiError(error));
    }
  };
  return (
    <div>
      <p>
        Sign in at your provider as one of your people, in a new window. Nobody is signed in here: you see what the service received and
        what it would do.
      </p>
      {failure ? <ErrorNotice error={failure} /> : null}
      <div class="actions">
        <Button busy={waiting !== undefined} onClick={start}>
          {waiting ? 'Waiting for the test sign-in…' : 'Run a test sign-in'}
        </Button>
      </div>
      {lastTest ? <TestReport report={lastTest} /> : null}
    </div>
  );
}

const OUTCOMES = {
  'create-user': 'would create the account',
  'update-user': 'would sign in the existing account',
  refused: 'refused',
} as const;

function TestReport({ report }: { report: LastTestSignIn }) {
  const refused = report.outcome === 'refused';
  return (
    <div class={refused ? 'notice notice-error' : 'notice notice-success'} role="status">
      <p class="notice-title">
        {refused ? 'The last test sign-in was refused' : 'The last test sign-in worked'} (<Time value={report.at} />)
      </p>
      {refused ? <p>{report.refusal}</p> : null}
      <dl class="facts">
        <div>
          <dt>{report.protocol === 'saml' ? 'NameID' : 'Subject'}</dt>
          <dd>{report.subject ?? '—'}</dd>
        </div>
        <div>
          <dt>E-mail</dt>
          <dd>{report.mapped?.email ?? '—'}</dd>
        </div>
        <div>
          <dt>Groups</dt>
          <dd>{report.mapped?.groups.join(', ') || '—'}</dd>
        </div>
        <div>
          <dt>Roles</dt>
          <dd>{report.roles.join(', ') || 'user'}</dd>
        </div>
        <div>
          <dt>Outcome</dt>
          <dd>{OUTCOMES[report.outcome]}</dd>
        </div>
      </dl>
    </div>
  );
}
