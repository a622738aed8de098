/** `mountPortal`: the portal rendered into an element of the host page; returns how to remove it. */
import { render } from 'preact';
import { Portal } from './app.tsx';

export interface PortalOptions {
  /** The schemaforge server's address (`https://api.example.com`); the page's origin when omitted. */
  baseUrl?: string | undefined;
  /** A portal link's token, to open a session with; without one the portal uses the session cookie. */
  link?: string | undefined;
}

export function mountPortal(element: Element, { baseUrl, link }: PortalOptions = {}): () => void {
  render(<Portal baseUrl={baseUrl ?? window.location.origin} link={link} />, element);
  return () => render(null, element);
}
