/** REST v1 file and config handlers. */
import { Readable } from 'node:stream';
import type { FilesOperations } from '../../generated/openapi/rest-v1.ts';
import { attachment } from '../http/content-disposition.ts';
import { ifMatchVersions, ifNoneMatchMatches, strongTag, withCurrentTag } from '../http/etag.ts';
import { principalOf } from '../http/principal-of.ts';
import { receiveUpload } from '../http/multipart-upload.ts';
import { negotiate, negotiateStored } from '../http/negotiation.ts';
import type { OperationHandlers } from '../http/openapi-routes.ts';
import { MAX_UPLOAD_BYTES } from '../http/rest-area.ts';
import type { Services } from '../services.ts';
import { BLOB_CHUNK_BYTES } from './blobs.repository.ts';
import type { AppConfigRecord } from './config-document.service.ts';
import type { FileRecord } from './files.service.ts';

type FileHandlers = OperationHandlers<FilesOperations>;

const JSON_ONLY = ['application/json'] as const;
const CONFIG_CACHE = 'max-age=300';
// A download is one user's data: shared caches must not keep it (`private`); the interface document
// fixes the lifetime at a day.
const FILE_CACHE = 'private, max-age=86400';

const filePath = (id: string) => `/api/v1/files/${id}`;

function toFileResponse(file: FileRecord) {
  return {
    id: file.id,
    filename: file.filename,
    contentType: file.content_type,
    size: file.size,
    createdAt: file.created_at.toISOString(),
    url: filePath(file.id),
  };
}

function toConfigResponse(config: AppConfigRecord) {
  return { version: config.version, settings: config.settings, updatedAt: config.updatedAt.toISOString() };
}

export function fileHandlers(services: Pick<Services, 'files' | 'configDocument'>): FileHandlers {
  const { files, configDocument } = services;
  return {
    uploadFile: async (request, reply) => {
      const actor = principalOf(request);
      const upload = await receiveUpload(request, { field: 'file', maxBytes: MAX_UPLOAD_BYTES, headBytes: 0 });
      try {
        const file = await files.store(actor, {
          filename: upload.filename,
          contentType: upload.declaredType,
          size: upload.size,
          content: upload.open(BLOB_CHUNK_BYTES),
        });
        reply.code(201).header('Location', filePath(file.id));
        return toFileResponse(file);
      } finally {
        await upload.discard();
      }
    },

    downloadFile: async (request, reply) => {
      const { file, content } = await files.open(principalOf(request), request.params.fileId);
      negotiateStored(request, file.content_type);
      return (
        reply
          .type(file.content_type)
          .header('Content-Length', String(file.size))
          .header('Content-Disposition', attachment(file.filename))
          .header('Cache-Control', FILE_CACHE)
          // The stored type is whatever the uploader declared: a browser must not sniff an HTML or script
          // body out of a text/plain upload and run it in this origin.
          .header('X-Content-Type-Options', 'nosniff')
          // One chunk read ahead at most: Readable.from's default would read 16 (8 MB) ahead of a slow client.
          .send(Readable.from(content, { highWaterMark: 1 }))
      );
    },

    getConfig: async (request, reply) => {
      negotiate(request, JSON_ONLY);
      const current = await configDocument.get();
      const tag = strongTag(current.version);
      reply.header('ETag', tag).header('Cache-Control', CONFIG_CACHE);
      if (ifNoneMatchMatches(request.headers['if-none-match'], tag)) return reply.code(304).send();
      return toConfigResponse(current);
    },

    updateConfig: async (request, reply) => {
      const expected = ifMatchVersions(request.headers['if-match']);
      const updated = await withCurrentTag(reply, configDocument.replaceSettings(request.body.settings, expected));
      reply.header('ETag', strongTag(updated.version));
      return toConfigResponse(updated);
    },
  };
}
