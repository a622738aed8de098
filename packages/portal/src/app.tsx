/**
 * The portal: opens the session (with the link, or the cookie of an earlier visit), then shows the
 * screens of the session's intents. Navigation is component state, not the URL, so a host page that
 * embeds the portal keeps its own URL and history.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, call, clientsFor, type Clients, type Intent, type PortalSession } from './api.ts';
import { DomainsScreen } from './screens/domains.tsx';
import { ScimScreen } from './screens/scim.tsx';
import { SsoScreen } from './screens/sso.tsx';
import { WebhooksScreen } from './screens/webhooks.tsx';
import { asApiError, Button, ErrorNotice, Loading, Time } from './ui.tsx';

export interface PortalProps {
  /** The server's address; the page's own origin when omitted. */
  baseUrl: string;
  /** A portal link's token (`#link=` of the link): opens a session before anything else. */
  link?: string | undefined;
}

type Screen = 'sso' | 'domains' | 'scim' | 'webhooks';

const SCREENS: { id: Screen; label: string; intents: Intent[] }[] = [
  { id: 'sso', label: 'Single sign-on', intents: ['sso'] },
  { id: 'domains', label: 'Domains', intents: ['domains', 'sso'] },
  { id: 'scim', label: 'Directory sync (SCIM)', intents: ['scim'] },
  { id: 'webhooks', label: 'Webhooks', intents: ['webhooks'] },
];

/** What each refusal of a link means for the person holding it. */
const LINK_REFUSALS: Record<string, string> = {
  PORTAL_LINK_EXPIRED: 'This portal link has expired. Links work for a few minutes only: ask your administrator for a new one.',
  PORTAL_LINK_USED: 'This portal link has already been used. Each link opens the portal once: ask your administrator for a new one.',
  PORTAL_LINK_INVALID: 'This portal link is not valid. Check that you copied the whole link, or ask your administrator for a new one.',
};

type SessionState =
  | { state: 'opening' }
  | { state: 'open'; session: PortalSession }
  | { state: 'closed'; why: string }
  | { state: 'error'; error: ApiError };

async function openSession(clients: Clients, link: string | undefined): Promise<SessionState> {
  try {
    const session = link
      ? await call(clients.portal.POST('/portal/session', { body: { link } }))
      : await call(clients.portal.GET('/portal/session'));
    return { state: 'open', session };
  } catch (error) {
    const failure = asApiError(error);
    if (failure.status !== 401) return { state: 'error', error: failure };
    const why = link
      ? (LINK_REFUSALS[failure.problem.code ?? ''] ?? LINK_REFUSALS.PORTAL_LINK_INVALID!)
      : 'There is no open portal session in this browser. Open the portal link your administrator sent you.';
    return { state: 'closed', why };
  }
}

export function Portal({ baseUrl, link }: PortalProps) {
  const clients = useMemo(() => clientsFor(baseUrl), [baseUrl]);
  const [session, setSession] = useState<SessionState>({ state: 'opening' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    // The link is used up by the first attempt: a retry reads the cookie that attempt may have set.
    void openSession(clients, round === 0 ? link : undefined).then((next) => current && setSession(next));
    return () => {
      current = false;
    };
  }, [clients, link, round]);

  return (
    <div class="portal">
      {session.state === 'opening' ? <Loading label="Opening the portal…" /> : null}
      {session.state === 'error' ? <ErrorNotice error={session.error} retry={() => setRound((r) => r + 1)} /> : null}
      {session.state === 'closed' ? <Closed why={session.why} /> : null}
      {session.state === 'open' ? (
        <Open
          clients={clients}
          session={session.session}
          onClosed={() => setSession({ state: 'closed', why: 'You signed out of the portal. Open a new portal link to come back.' })}
        />
      ) : null}
    </div>
  );
}

function Closed({ why }: { why: string }) {
  return (
    <main class="closed">
      <h1>Administration portal</h1>
      <p>{why}</p>
    </main>
  );
}

function Open({ clients, session, onClosed }: { clients: Clients; session: PortalSession; onClosed: () => void }) {
  const screens = SCREENS.filter((screen) => screen.intents.some((intent) => session.intents.includes(intent)));
  const [screen, setScreen] = useState<Screen | undefined>(screens[0]?.id);
  const [closing, setClosing] = useState(false);
  const [closeError, setCloseError] = useState<ApiError>();
  const signOut = async () => {
    setClosing(true);
    try {
      await call(clients.portal.DELETE('/portal/session'));
      onClosed();
    } catch (error) {
      const failure = asApiError(error);
      if (failure.status === 401) onClosed();
      else setCloseError(failure);
    } finally {
      setClosing(false);
    }
  };
  return (
    <>
      <header class="portal-header">
        <div>
          <p class="portal-eyebrow">Administration portal</p>
          <p class="portal-tenant">{session.tenantName}</p>
        </div>
        <div class="portal-session">
          <span class="muted">
            Session ends <Time value={session.expiresAt} /> at the latest
          </span>
          <Button kind="secondary" busy={closing} onClick={signOut}>
            Sign out
          </Button>
        </div>
      </header>
      {closeError ? <ErrorNotice error={closeError} /> : null}
      <nav class="portal-nav" aria-label="Portal sections">
        <ul>
          {screens.map(({ id, label }) => (
            <li key={id}>
              <button type="button" class="nav-item" aria-current={id === screen ? 'page' : undefined} onClick={() => setScreen(id)}>
                {label}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <main class="portal-main">
        {screen === 'sso' ? <SsoScreen clients={clients} tenantId={session.tenantId} onDomains={() => setScreen('domains')} /> : null}
        {screen === 'domains' ? <DomainsScreen clients={clients} tenantId={session.tenantId} /> : null}
        {screen === 'scim' ? <ScimScreen clients={clients} tenantId={session.tenantId} /> : null}
        {screen === 'webhooks' ? <WebhooksScreen clients={clients} /> : null}
        {screen === undefined ? <p>This link grants nothing this portal shows yet.</p> : null}
      </main>
    </>
  );
}
