/**
 * The post lists of openapi/posts.yaml (`/posts`, `/feed`) in their own scope: authentication is
 * optional there (drafts of a signed-in author are listed), a bad token still a 401.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { operations } from '../../generated/openapi/posts.ts';
import * as bodies from '../../generated/validators/posts.bodies.js';
import * as params from '../../generated/validators/posts.params.js';
import { bearerAuthentication } from '../auth/bearer-hook.ts';
import { CursorCodec } from '../http/cursor.ts';
import { registerOperations, type OperationHandlers } from '../http/openapi-routes.ts';
import type { AreaOptions } from '../services.ts';
import { PostCursors } from './post-lists.cursors.ts';
import { postListHandlers } from './post-lists.handlers.ts';

interface PostsOptions extends AreaOptions<'postLists'> {
  /** Key of the signed list cursors (src/http/cursor.ts: derived from the JWT secret). */
  cursorSecret: Uint8Array;
}

export const postsPlugin: FastifyPluginAsync<PostsOptions> = async (scope, { services, authenticate, cursorSecret }) => {
  scope.addHook('onRequest', bearerAuthentication(authenticate));
  const handlers: OperationHandlers<operations> = postListHandlers(services, new PostCursors(new CursorCodec(cursorSecret)));
  registerOperations<operations>(scope, 'posts', { params, bodies }, handlers);
};
