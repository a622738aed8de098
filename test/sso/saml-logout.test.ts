// test-suite: once (SAML single logout against the test identity provider)
/**
 * SAML single logout against the test identity provider, which checks what it receives as a real one
 * does (the SP's signing certificate read from the SP metadata): SP-initiated logout (the session
 * ends here, the LogoutRequest names the sign-in's NameID and SessionIndex, the LogoutResponse back
 * is accepted once and a forged one refused), provider-initiated logout on both bindings (the
 * user's sessions end, on two instances at once with PostgreSQL; a signed LogoutResponse goes back),
 * and every hostile LogoutRequest refused with its reason, every session left alive.
 */
import t, { type Test } from 'tap';
import { onPostgres } from '../helpers/database.ts';
import { makeSamlKeys, samlId, TestSamlIdp, type LogoutSigning } from '../helpers/saml-idp.ts';
import { startSecondInstance } from '../helpers/server.ts';
import { samlTenant, type SamlTenant } from './saml-fixtures.ts';
import { sessionCookie } from './sso-fixtures.ts';

/** Signs `nameId` in through an SP-initiated sign-in with `sessionIndex`; the session token. */
async function signIn(acme: SamlTenant, nameId: string, sessionIndex = samlId()): Promise<string> {
  const login = await acme.startLogin();
  const r = await acme.post(acme.idp.response(acme.options(nameId, { inResponseTo: login.id, sessionIndex })), login.relayState);
  if (r.status !== 302) throw new Error(`sign-in answered ${r.status}: ${await r.text()}`);
  return sessionCookie(r)!;
}

/** GET /auth/session with the cookie, on `base`: 200 while the session lives, 401 after. */
const sessionStatus = async (base: string, token: string) =>
  (await fetch(`${base}/auth/session`, { headers: { cookie: `sf_session=${token}` } })).status;

const postForm = (url: string, fields: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });

/** What the provider checks of a LogoutResponse the SP sent back on the redirect binding. */
async function verifyLogoutResponse(t: Test, acme: SamlTenant, location: string, inResponseTo: string, relayState: string) {
  t.ok(location.startsWith(`${acme.idp.sloUrl}?SAMLResponse=`), 'to the provider’s single logout URL, with a LogoutResponse');
  const certificates = TestSamlIdp.spSigningCertificates(
    await (await fetch(`${acme.server.baseUrl}/saml/metadata/${acme.tenantId}`)).text(),
  );
  t.ok(certificates.length > 0, 'the SP metadata publishes its signing certificate');
  t.ok(
    certificates.some((certificate) => TestSamlIdp.verifyRedirectSignature(location, certificate)),
    'signed (RSA-SHA256) with the SP’s published key',
  );
  const { xml, relayState: returned } = TestSamlIdp.redirectMessage(location);
  t.match(xml, /^(<\?xml[^>]*\?>)?<samlp:LogoutResponse /);
  t.match(xml, `InResponseTo="${inResponseTo}"`);
  t.match(xml, `Destination="${acme.idp.sloUrl}"`);
  t.match(xml, 'urn:oasis:names:tc:SAML:2.0:status:Success');
  t.match(xml, `>${acme.spEntityId}</saml:Issuer>`);
  t.equal(returned, relayState, 'the relay state comes back');
}

t.test('the SP metadata publishes the single logout service on both bindings', async (t) => {
  const idp = await TestSamlIdp.create('slo-meta-idp');
  const acme = await samlTenant(t, idp, 'slo-meta');
  const xml = await (await fetch(`${acme.server.baseUrl}/saml/metadata/slo-meta`)).text();
  const slo = `${acme.server.baseUrl}/auth/saml/slo-meta/slo`;
  t.match(xml, `<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${slo}"/>`);
  t.match(xml, `<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${slo}"/>`);
});

t.test('SP-initiated: logout ends the session here, then a signed LogoutRequest; the LogoutResponse is taken once', async (t) => {
  const idp = await TestSamlIdp.create('slo-sp-idp');
  const acme = await samlTenant(t, idp, 'slo-sp');
  const slo = `${acme.server.baseUrl}/auth/saml/slo-sp/slo`;
  const token = await signIn(acme, 'sue@slo-sp.example', '_session-of-sue');
  t.equal(await sessionStatus(acme.server.baseUrl, token), 200);

  const out = await fetch(`${acme.server.baseUrl}/auth/logout`, {
    method: 'POST',
    headers: { cookie: `sf_session=${token}`, origin: acme.server.baseUrl },
  });
  t.equal(out.status, 200);
  const { providerLogoutUrl } = (await out.json()) as { providerLogoutUrl: string };
  t.equal(await sessionStatus(acme.server.baseUrl, token), 401, 'the next request with the cookie is refused');

  t.ok(providerLogoutUrl.startsWith(`${idp.sloUrl}?SAMLRequest=`), 'to the provider’s SingleLogoutService');
  const metadata = await (await fetch(`${acme.server.baseUrl}/saml/metadata/slo-sp`)).text();
  const certificates = TestSamlIdp.spSigningCertificates(metadata);
  t.ok(
    certificates.some((certificate) => TestSamlIdp.verifyRedirectSignature(providerLogoutUrl, certificate)),
    'the provider verifies the signature with the certificate of the SP metadata',
  );
  t.notOk(
    TestSamlIdp.verifyRedirectSignature(providerLogoutUrl, (await makeSamlKeys('other')).certificatePem),
    'and no other key verifies it',
  );
  const request = TestSamlIdp.redirectMessage(providerLogoutUrl);
  t.match(request.xml, /^(<\?xml[^>]*\?>)?<samlp:LogoutRequest /);
  t.match(request.xml, `Destination="${idp.sloUrl}"`);
  t.match(request.xml, />sue@slo-sp\.example<\/saml:NameID>/, 'the NameID of the sign-in');
  t.match(request.xml, /<saml2p:SessionIndex[^>]*>_session-of-sue<\/saml2p:SessionIndex>/, 'the SessionIndex of the sign-in');
  t.match(request.xml, `>${acme.spEntityId}</saml:Issuer>`);
  const requestId = /\sID="([^"]+)"/.exec(request.xml)![1]!;
  const relayState = request.relayState!;
  t.ok(relayState, 'with a relay state');

  const forged = await fetch(
    idp.redirectUrl(slo, idp.logoutResponseXml({ destination: slo, inResponseTo: requestId }), relayState, {
      keys: await makeSamlKeys('forger'),
    }),
    { redirect: 'manual' },
  );
  t.equal(forged.status, 400, 'a LogoutResponse signed by another key is refused');
  t.match(await forged.json(), { code: 'SAML_LOGOUT_REJECTED', detail: /signature/ });
  const unknown = await fetch(
    idp.redirectUrl(slo, idp.logoutResponseXml({ destination: slo, inResponseTo: '_nothing-sent' }), relayState),
    {
      redirect: 'manual',
    },
  );
  t.equal(unknown.status, 400, 'a LogoutResponse to a request never sent is refused');
  t.match(await unknown.json(), { detail: /InResponseTo/ });

  const answer = idp.redirectUrl(slo, idp.logoutResponseXml({ destination: slo, inResponseTo: requestId }), relayState);
  const back = await fetch(answer, { redirect: 'manual' });
  t.equal(back.status, 302, 'the provider’s LogoutResponse is accepted');
  t.equal(back.headers.get('location'), '/', 'and the browser lands on a page of this server');
  const again = await fetch(answer, { redirect: 'manual' });
  t.equal(again.status, 400, 'once');

  // The same on the POST binding, for a second sign-in and logout.
  const second = await signIn(acme, 'sue@slo-sp.example');
  const out2 = await fetch(`${acme.server.baseUrl}/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${second}` } });
  const url2 = ((await out2.json()) as { providerLogoutUrl: string }).providerLogoutUrl;
  const request2 = TestSamlIdp.redirectMessage(url2);
  const id2 = /\sID="([^"]+)"/.exec(request2.xml)![1]!;
  const failed = await postForm(slo, {
    SAMLResponse: idp.postMessage(
      idp.logoutResponseXml({ destination: slo, inResponseTo: id2, statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder' }),
    ),
    RelayState: request2.relayState!,
  });
  t.equal(failed.status, 400, 'a LogoutResponse that is not Success is refused');
  t.match(await failed.json(), { detail: /did not log out/ });
  const unsignedPost = await postForm(slo, {
    SAMLResponse: idp.postMessage(idp.logoutResponseXml({ destination: slo, inResponseTo: id2 }), { sign: false }),
    RelayState: request2.relayState!,
  });
  t.equal(unsignedPost.status, 400, 'an unsigned posted LogoutResponse is refused');
  const posted = await postForm(slo, {
    SAMLResponse: idp.postMessage(idp.logoutResponseXml({ destination: slo, inResponseTo: id2 })),
    RelayState: request2.relayState!,
  });
  t.equal(posted.status, 302, 'a signed posted LogoutResponse is accepted');
  t.equal(posted.headers.get('location'), '/');
});

t.test('provider-initiated on the redirect binding ends every session of the NameID and answers a signed LogoutResponse', async (t) => {
  const idp = await TestSamlIdp.create('slo-idp-idp');
  const acme = await samlTenant(t, idp, 'slo-idp');
  const slo = `${acme.server.baseUrl}/auth/saml/slo-idp/slo`;
  const first = await signIn(acme, 'ian@slo-idp.example');
  const second = await signIn(acme, 'ian@slo-idp.example');
  const other = await signIn(acme, 'ora@slo-idp.example');

  const id = samlId();
  const r = await fetch(idp.redirectUrl(slo, idp.logoutRequestXml({ destination: slo, nameId: 'ian@slo-idp.example', id }), 'rs-1'), {
    redirect: 'manual',
  });
  t.equal(r.status, 302, await r.clone().text());
  await verifyLogoutResponse(t, acme, r.headers.get('location')!, id, 'rs-1');
  t.equal(await sessionStatus(acme.server.baseUrl, first), 401, 'the NameID’s sessions end');
  t.equal(await sessionStatus(acme.server.baseUrl, second), 401);
  t.equal(await sessionStatus(acme.server.baseUrl, other), 200, 'another user’s session lives');
});

t.test('provider-initiated on the POST binding, with a SessionIndex, ends that session only', async (t) => {
  const idp = await TestSamlIdp.create('slo-post-idp');
  const acme = await samlTenant(t, idp, 'slo-post');
  const slo = `${acme.server.baseUrl}/auth/saml/slo-post/slo`;
  const named = await signIn(acme, 'pat@slo-post.example', '_index-a');
  const elsewhere = await signIn(acme, 'pat@slo-post.example', '_index-b');
  const id = samlId();
  const message = idp.logoutRequestXml({ destination: slo, nameId: 'pat@slo-post.example', sessionIndex: '_index-a', id });
  const r = await postForm(slo, { SAMLRequest: idp.postMessage(message), RelayState: 'rs-2' });
  t.equal(r.status, 302, await r.clone().text());
  await verifyLogoutResponse(t, acme, r.headers.get('location')!, id, 'rs-2');
  t.equal(await sessionStatus(acme.server.baseUrl, named), 401, 'the session of that SessionIndex ends');
  t.equal(await sessionStatus(acme.server.baseUrl, elsewhere), 200, 'the same user’s other provider session lives');
});

t.test('hostile LogoutRequests are refused with their reason and end nothing', async (t) => {
  const idp = await TestSamlIdp.create('slo-bad-idp');
  const acme = await samlTenant(t, idp, 'slo-bad');
  const slo = `${acme.server.baseUrl}/auth/saml/slo-bad/slo`;
  const nameId = 'hal@slo-bad.example';
  const token = await signIn(acme, nameId);
  const foreign = await makeSamlKeys('foreign');
  const request = (overrides: Partial<Parameters<TestSamlIdp['logoutRequestXml']>[0]> = {}) =>
    idp.logoutRequestXml({ destination: slo, nameId, ...overrides });
  const viaRedirect = (message: string, signing?: LogoutSigning) =>
    fetch(idp.redirectUrl(slo, message, 'rs', signing), { redirect: 'manual' });
  const viaPost = (message: string, signing?: LogoutSigning) => postForm(slo, { SAMLRequest: idp.postMessage(message, signing) });
  const replayed = samlId();
  t.equal((await viaRedirect(request({ id: replayed, nameId: 'nobody@slo-bad.example' }))).status, 302, 'a first use of an id');

  const cases: [string, Promise<Response>, RegExp][] = [
    ['unsigned (redirect)', viaRedirect(request(), { sign: false }), /not signed/],
    ['unsigned (POST)', viaPost(request(), { sign: false }), /signature/],
    ['signed by another key (redirect)', viaRedirect(request(), { keys: foreign }), /signature does not verify/],
    ['signed by another key (POST)', viaPost(request(), { keys: foreign }), /signature/i],
    ['RSA-SHA1 (redirect)', viaRedirect(request(), { algorithm: 'sha1' }), /algorithm .* not accepted/],
    ['RSA-SHA1 (POST)', viaPost(request(), { algorithm: 'sha1' }), /algorithm .* not accepted/],
    ['another issuer', viaRedirect(request({ issuer: 'https://evil.example/metadata' })), /Issuer/],
    ['NotOnOrAfter past', viaRedirect(request({ notOnOrAfter: new Date(Date.now() - 5 * 60_000) })), /expired/],
    ['issued long ago', viaPost(request({ issueInstant: new Date(Date.now() - 60 * 60_000) })), /five minutes/],
    ['another destination', viaRedirect(request({ destination: `${acme.server.baseUrl}/auth/saml/other/slo` })), /Destination/],
    ['no destination', viaPost(request({ destination: '' })), /Destination/],
    ['a replayed id', viaRedirect(request({ id: replayed })), /already/],
    ['a DOCTYPE', viaPost(`<!DOCTYPE x [<!ENTITY e "x">]>${request()}`, { sign: false }), /DOCTYPE/],
  ];
  for (const [name, pending, reason] of cases) {
    const r = await pending;
    t.equal(r.status, 400, `${name}: refused`);
    const body = (await r.json()) as { code?: string; detail?: string };
    t.equal(body.code, 'SAML_LOGOUT_REJECTED', name);
    t.match(body.detail, reason, `${name}: ${body.detail}`);
  }
  const tampered = new URL(idp.redirectUrl(slo, request(), 'rs'));
  tampered.searchParams.set('RelayState', 'changed');
  const r = await fetch(tampered, { redirect: 'manual' });
  t.equal(r.status, 400, 'a relay state changed after signing is refused');
  t.equal(await sessionStatus(acme.server.baseUrl, token), 200, 'the session lives through all of them');
});

t.test(
  'provider- and SP-initiated logout on one instance end the sessions on both',
  { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): an in-memory PGlite cannot be shared by two instances' },
  async (t) => {
    const idp = await TestSamlIdp.create('slo-two-idp');
    const acme = await samlTenant(t, idp, 'slo-two');
    const second = await startSecondInstance(t, acme.server);
    const token = await signIn(acme, 'two@slo-two.example');
    t.equal(await sessionStatus(second.baseUrl, token), 200, 'the second instance knows the session');
    // Both instances answer at the same base URL: the messages name it, whichever instance takes them.
    const slo = `${acme.server.baseUrl}/auth/saml/slo-two/slo`;
    const id = samlId();
    const message = idp.logoutRequestXml({ destination: slo, nameId: 'two@slo-two.example', id });
    const onSecond = idp.redirectUrl(slo, message, 'rs-3').replace(acme.server.baseUrl, second.baseUrl);
    const r = await fetch(onSecond, { redirect: 'manual' });
    t.equal(r.status, 302, await r.clone().text());
    await verifyLogoutResponse(t, acme, r.headers.get('location')!, id, 'rs-3');
    t.equal(await sessionStatus(acme.server.baseUrl, token), 401, 'the first instance refuses it on the next request');
    t.equal(await sessionStatus(second.baseUrl, token), 401, 'and the second');

    const posted = await signIn(acme, 'two@slo-two.example');
    const viaPost = await postForm(`${second.baseUrl}/auth/saml/slo-two/slo`, {
      SAMLRequest: idp.postMessage(idp.logoutRequestXml({ destination: slo, nameId: 'two@slo-two.example' })),
    });
    t.equal(viaPost.status, 302, 'the POST binding on the second instance');
    t.equal(await sessionStatus(acme.server.baseUrl, posted), 401, 'ends the session the first instance opened');

    // SP-initiated: logging out on the second instance ends the session on the first too, and
    // still offers the provider's logout.
    const third = await signIn(acme, 'two@slo-two.example');
    t.equal(await sessionStatus(second.baseUrl, third), 200);
    const out = await fetch(`${second.baseUrl}/auth/logout`, {
      method: 'POST',
      headers: { cookie: `sf_session=${third}`, origin: acme.server.baseUrl },
    });
    t.equal(out.status, 200, 'logout on the second instance');
    const { providerLogoutUrl } = (await out.json()) as { providerLogoutUrl: string | null };
    t.ok(providerLogoutUrl?.startsWith(`${idp.sloUrl}?SAMLRequest=`), 'with the provider’s logout');
    t.equal(await sessionStatus(acme.server.baseUrl, third), 401, 'the first instance refuses the session at once');
    t.equal(await sessionStatus(second.baseUrl, third), 401, 'and the second');
  },
);
