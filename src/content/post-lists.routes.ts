import type { FastifyInstance } from 'fastify';
import * as bodies from '../../generated/validators/posts.bodies.js';
import * as params from '../../generated/validators/posts.params.js';
import type { operations } from '../../generated/openapi/posts.ts';
import { CursorCodec } from '../http/cursor.ts';
import { loadOpenApiDocument } from '../http/openapi-docs.ts';
import { registerOperations } from '../http/openapi-routes.ts';
import type { Services } from '../services.ts';
import { PostCursors } from './post-lists.cursors.ts';
import { postListHandlers } from './post-lists.handlers.ts';

/** Serves openapi/posts.yaml; every operation of the document must have a handler (complete map). */
export function registerPostLists(app: FastifyInstance, services: Services, cursorSecret: Uint8Array): void {
  const cursors = new PostCursors(new CursorCodec(cursorSecret));
  registerOperations<operations>(app, loadOpenApiDocument('posts'), { params, bodies }, postListHandlers(services, cursors));
}
