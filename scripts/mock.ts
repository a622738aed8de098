/**
 * `npm run mock`: the mock server (scripts/mock/mock-server.ts) on PORT (default 3000) and HOST, with
 * the same configuration as the server; it needs no database. REST answers come from the OpenAPI
 * examples through the server's own validation, negotiation, serializers and SCIM error handling;
 * GraphQL from the schema; `Prefer: code=, example=, dynamic=true` picks another answer.
 */
import { loadConfigOrExit } from '../src/process-entry.ts';
import { createMockServer } from './mock/mock-server.ts';

const config = loadConfigOrExit();
const http = await createMockServer(config);
await http.listen({ port: config.port, host: config.host });
http.log.info(
  { baseUrl: config.baseUrl },
  `mock server answering every REST operation from the OpenAPI examples and GraphQL from the schema at ${config.baseUrl}`,
);
