/**
 * Image acceptance by content: the type comes from the file's magic bytes (file-type), never from its
 * name or declared type, and the dimensions from its header (image-size) when the header is within
 * the bytes we looked at.
 */
import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { AppError } from '../errors.ts';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type StoredImageType = (typeof IMAGE_TYPES)[number];

/** Enough for every supported signature and, in practice, for the dimensions in the header. */
export const IMAGE_HEAD_BYTES = 64 * 1024;

interface DetectedImage {
  contentType: StoredImageType;
  width: number | null;
  height: number | null;
}

export async function detectImage(head: Uint8Array): Promise<DetectedImage> {
  const type = await fileTypeFromBuffer(head);
  const mime = type?.mime as StoredImageType | undefined;
  if (!mime || !IMAGE_TYPES.includes(mime)) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The file is not a PNG, JPEG, GIF or WebP image (detected: ${type?.mime ?? 'unknown'})`,
      'NOT_AN_IMAGE',
    );
  }
  try {
    const { width, height } = imageSize(head);
    return { contentType: mime, width: width > 0 ? width : null, height: height > 0 ? height : null };
  } catch {
    // The header lies beyond the inspected bytes or is damaged: the image is kept without dimensions.
    return { contentType: mime, width: null, height: null };
  }
}
