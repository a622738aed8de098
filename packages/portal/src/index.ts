/** The embeddable portal: `mountPortal(element, options)`; `@schemaforge/portal/element` defines `<schemaforge-portal>`. */
export { mountPortal, type PortalOptions } from './mount.tsx';
