/**
 * `npm run mock`: the mock server (scripts/mock/mock-server.ts) on PORT (default 3000) and HOST, with
 * the same configuration as the server; it needs no database.
 */
import { loadConfigOrExit } from '../src/process-entry.ts';
import { createMockServer } from './mock/mock-server.ts';

const config = loadConfigOrExit();
const http = await createMockServer(config);
await http.listen({ port: config.port, host: config.host });
http.log.info({ baseUrl: config.baseUrl }, `mock server answering every REST operation from the OpenAPI examples at ${config.baseUrl}`);
