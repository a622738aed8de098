/** The methods an OpenAPI 3.1 path item may hold an operation under, for every walk over a document. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
