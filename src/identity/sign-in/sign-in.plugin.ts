/**
 * The sign-in area (openapi/auth.yaml): password sign-in, sessions, SAML and OpenID Connect. Its own
 * scope parses form bodies (SAML's HTTP-POST binding, back-channel logout), which no other area takes.
 */
import formbody from '@fastify/formbody';
import type { FastifyPluginAsync } from 'fastify';
import type { operations } from '../../../generated/openapi/auth.ts';
import * as bodies from '../../../generated/validators/auth.bodies.js';
import * as params from '../../../generated/validators/auth.params.js';
import { bearerAuthentication } from '../../auth/bearer-hook.ts';
import type { Database } from '../../db/database.ts';
import { registerOperations } from '../../http/openapi-routes.ts';
import type { AreaOptions } from '../../services.ts';
import { MAX_SAML_RESPONSE_BYTES } from '../saml/saml-response-guard.ts';
import { signInHandlers } from './sign-in.handlers.ts';

interface SignInPluginOptions extends AreaOptions<'accounts' | 'identityProviders' | 'sessions' | 'saml' | 'oidc'> {
  baseUrl: string;
  db: Database;
}

export const signInPlugin: FastifyPluginAsync<SignInPluginOptions> = async (scope, { services, authenticate, baseUrl, db }) => {
  // A base64 SAML response is 4/3 of the XML, plus the relay state and form encoding.
  await scope.register(formbody, { bodyLimit: Math.ceil(MAX_SAML_RESPONSE_BYTES * 1.5) });
  scope.addHook('onRequest', bearerAuthentication(authenticate));
  registerOperations<operations>(scope, 'auth', { params, bodies }, signInHandlers(services, { baseUrl, db }));
};
