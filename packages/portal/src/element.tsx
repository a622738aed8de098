/**
 * `<schemaforge-portal base-url="…">`: the portal as a custom element, for a host page that would
 * rather write a tag than call `mountPortal`. It renders into its own light DOM, so the page's copy
 * of portal.css styles it (a shadow root would need a second way to load the style sheet).
 */
import { mountPortal } from './mount.tsx';

class SchemaforgePortal extends HTMLElement {
  #unmount: (() => void) | undefined;

  connectedCallback(): void {
    this.#unmount = mountPortal(this, {
      baseUrl: this.getAttribute('base-url') ?? undefined,
      link: this.getAttribute('link') ?? undefined,
    });
  }

  disconnectedCallback(): void {
    this.#unmount?.();
    this.#unmount = undefined;
  }
}

if (!customElements.get('schemaforge-portal')) customElements.define('schemaforge-portal', SchemaforgePortal);
