/**
 * The HTTP methods of OpenAPI path items, in one place for the server, the scripts and the tests.
 * `npm run generate` refuses a document with an operation under a method the server does not serve
 * (scripts/generate/openapi.ts), so a walk over `SERVED_METHODS` sees every operation there is.
 */

/** The methods an OpenAPI 3.1 path item may hold an operation under, for every walk over a document. */
export const PATH_ITEM_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The methods the server routes an operation under (src/http/openapi-routes.ts). */
export const SERVED_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const satisfies readonly (typeof PATH_ITEM_METHODS)[number][];
