/**
 * The entry of the page the server serves at `/portal`. A portal link is `/portal#link=<token>`:
 * the token is read from the fragment and the fragment removed at once, so it is neither kept in
 * the history nor shown on screen; the session cookie takes over from there.
 */
import './portal.css';
import { mountPortal } from './mount.tsx';

function start(): void {
  const link = new URLSearchParams(window.location.hash.slice(1)).get('link') ?? undefined;
  if (window.location.hash) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  const root = document.getElementById('portal');
  if (root) mountPortal(root, { link });
}

start();
// A second link opened in the same tab changes only the fragment, which reloads nothing.
window.addEventListener('hashchange', () => {
  if (new URLSearchParams(window.location.hash.slice(1)).has('link')) start();
});
