/** Product and image fixtures shared by the catalog and order tests. */
import type { components } from '../../generated/openapi/rest-v1.ts';
import type { TestServer } from '../helpers/server.ts';
import { bearer, dataOf } from '../helpers/typed-client.ts';

type CreateProductRequest = components['schemas']['CreateProductRequest'];

export const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A 3x2 GIF header and an empty image: enough for type detection and dimensions. */
export const GIF_3X2 = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([3, 0, 2, 0, 0, 0, 0]), Buffer.from(';')]);

let counter = 0;

export function productBody(overrides: Partial<CreateProductRequest> = {}): CreateProductRequest {
  counter += 1;
  return {
    name: `Product ${counter}`,
    description: `Description ${counter}`,
    price: 10 + counter / 100,
    sku: `SKU-${String(counter).padStart(6, '0')}`,
    category: 'OTHER',
    stockQuantity: 10,
    ...overrides,
  };
}

export async function createProduct(
  server: TestServer,
  overrides: Partial<CreateProductRequest> = {},
): Promise<components['schemas']['ProductResponse']> {
  const token = await server.token('catalog-writer', ['ADMIN']);
  return dataOf(201, server.v1.POST('/api/v1/products', { body: productBody(overrides), headers: bearer(token) }));
}

export function multipart(field: string, content: Blob | Buffer, filename: string, type = 'application/octet-stream'): FormData {
  const form = new FormData();
  form.append(field, content instanceof Blob ? content : new Blob([content], { type }), filename);
  return form;
}
