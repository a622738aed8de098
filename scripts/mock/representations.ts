/**
 * How the mock writes a response body in a media type, with the server's own serializers: XML and
 * CSV of products through src/catalog/products.v1.representation.ts (the only XML and CSV the
 * server writes), JSON as JSON. A media type the server writes no serializer for gets the example's
 * text as the document gives it.
 *
 * Binary and wildcard types (`*\/*`, `image/*`) never reach the wire as such: the server sends a
 * stored file's or image's real type, so the mock picks the type such a body most plainly has —
 * application/octet-stream for a file of any type, image/png for an image — and, for an image, a
 * real 1×1 PNG, so that a frontend's <img> shows something; a file without an example is a few
 * placeholder bytes, so that a download is not empty.
 */
import type { components } from '../../generated/openapi/rest-v1.ts';
import { productPageXml, productsCsv, productXml, type PagedProductResponse } from '../../src/catalog/products.v1.representation.ts';

type Serializer = (value: unknown) => string;

/** The server's serializers by media type, then by the name of the response schema they write. */
const SERIALIZERS: Readonly<Record<string, Readonly<Record<string, Serializer>>>> = {
  'application/xml': {
    PagedProductResponse: (value) => productPageXml(value as PagedProductResponse),
    ProductResponse: (value) => productXml(value as components['schemas']['ProductResponse']),
  },
  'text/csv': {
    // A CSV page carries the page's products only, as the server writes it.
    PagedProductResponse: (value) => productsCsv((value as PagedProductResponse).content),
  },
};

const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

function isJsonType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

/** Text the mock writes with a charset: JSON, XML, YAML, CSV, plain text. */
function isTextType(type: string): boolean {
  return isJsonType(type) || /xml$|yaml$/.test(type) || type.startsWith('text/');
}

/** Bytes whose type the server takes from what it stores (files, images). */
export function isBinaryType(type: string): boolean {
  return !isTextType(type);
}

/** The type a body of documented type `type` is sent as: a wildcard made concrete (see the header). */
export function concreteType(type: string): string {
  if (type === '*/*' || type === 'application/*') return 'application/octet-stream';
  if (type === 'image/*') return 'image/png';
  return type;
}

/** The name of the component schema a media type's schema refers to, if it is one. */
export function schemaNameOf(media: Record<string, any> | undefined): string | undefined {
  const ref = media?.schema?.$ref;
  return typeof ref === 'string' ? ref.split('/').at(-1) : undefined;
}

/** Whether the server writes `type` from a structured value of this schema (XML, CSV). */
export function hasSerializer(type: string, schemaName: string | undefined): boolean {
  return schemaName !== undefined && SERIALIZERS[type]?.[schemaName] !== undefined;
}

interface Representation {
  contentType: string;
  body: string | Buffer;
}

/** `value` written as `type`: a string example is already the representation and goes as it is. */
export function represent(type: string, schemaName: string | undefined, value: unknown): Representation {
  const sent = concreteType(type);
  if (isBinaryType(sent)) {
    if (sent === 'image/png') return { contentType: sent, body: PIXEL_PNG };
    return { contentType: sent, body: Buffer.from(typeof value === 'string' ? value : 'mock file content\n') };
  }
  const contentType = `${sent}; charset=utf-8`;
  if (isJsonType(sent)) return { contentType, body: JSON.stringify(value ?? null) };
  if (typeof value === 'string') return { contentType, body: value };
  const serialize = schemaName ? SERIALIZERS[sent]?.[schemaName] : undefined;
  return { contentType, body: serialize ? serialize(value) : value === undefined ? '' : JSON.stringify(value) };
}
