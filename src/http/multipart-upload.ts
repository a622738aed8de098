/**
 * Receives the one file part of a multipart upload without holding it in memory: the part is streamed
 * to a temporary file while its size is counted and its first bytes are kept for type detection.
 * busboy's `fileSize` limit fires the moment the part grows past the limit; the copy is aborted right
 * there and the request answered 413, so an oversized upload is never buffered or stored.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

interface SpooledUpload {
  filename: string;
  /** The part's declared content type (not trusted for images: see `head`). */
  declaredType: string;
  size: number;
  /** The first bytes of the content, for magic-number detection. */
  head: Buffer;
  /** Reads the content back in chunks of `chunkBytes`. */
  open(chunkBytes: number): Readable;
  /** Removes the temporary copy; always call it (a finally block). */
  discard(): Promise<void>;
}

interface UploadOptions {
  field: string;
  maxBytes: number;
  headBytes: number;
}

const tooLarge = (maxBytes: number) => new AppError('PAYLOAD_TOO_LARGE', `The uploaded file exceeds ${maxBytes} bytes`);
const emptyFile = (field: string, message: string) => new AppError('VALIDATION', message, 'EMPTY_FILE', [{ field: [field], message }]);

async function spool(part: MultipartFile, options: UploadOptions): Promise<SpooledUpload> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'schemaforge-upload-'));
  const file = path.join(dir, 'content');
  const discard = () => fs.promises.rm(dir, { recursive: true, force: true });
  const abort = new AbortController();
  let exceeded = false;
  part.file.once('limit', () => {
    exceeded = true;
    abort.abort();
  });
  let size = 0;
  const head: Buffer[] = [];
  let headLength = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (headLength < options.headBytes) {
        const slice = chunk.subarray(0, options.headBytes - headLength);
        head.push(Buffer.from(slice));
        headLength += slice.length;
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(part.file, meter, fs.createWriteStream(file), { signal: abort.signal });
  } catch (error) {
    await discard();
    if (exceeded) throw tooLarge(options.maxBytes);
    throw error;
  }
  if (exceeded || part.file.truncated) {
    await discard();
    throw tooLarge(options.maxBytes);
  }
  return {
    filename: part.filename,
    declaredType: part.mimetype,
    size,
    head: Buffer.concat(head),
    open: (chunkBytes) => fs.createReadStream(file, { highWaterMark: chunkBytes }),
    discard,
  };
}

/**
 * Returns the part named `options.field`; other parts are read and dropped. 415 when the request is
 * not multipart, 400 (`empty-file`) when the part is missing or has no bytes, 413 when it is too big.
 */
export async function receiveUpload(request: FastifyRequest, options: UploadOptions): Promise<SpooledUpload> {
  if (!request.isMultipart()) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'This operation accepts multipart/form-data with a part named "file" only');
  }
  let upload: SpooledUpload | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: options.maxBytes } })) {
      if (part.type !== 'file') continue;
      if (upload || part.fieldname !== options.field) {
        part.file.resume();
        continue;
      }
      upload = await spool(part, options);
    }
  } catch (error) {
    await upload?.discard();
    // busboy reports a broken body (bad boundary, truncated part) as a plain Error without a code.
    const e = error as { code?: unknown; statusCode?: unknown };
    if (!(error instanceof AppError) && e.code === undefined && e.statusCode === undefined) {
      throw new AppError('VALIDATION', `The multipart body is malformed: ${(error as Error).message}`, 'MALFORMED_MULTIPART', [
        { field: [], message: 'malformed multipart/form-data body' },
      ]);
    }
    throw error;
  }
  if (!upload) throw emptyFile(options.field, `The multipart body has no part named "${options.field}"`);
  if (upload.size === 0) {
    await upload.discard();
    throw emptyFile(options.field, `The "${options.field}" part is empty`);
  }
  return upload;
}
