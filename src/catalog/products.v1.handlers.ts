/** REST v1 product handlers: one thin hop from the validated request to the service. */
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { ProductsOperations } from '../../generated/openapi/rest-v1.ts';
import { BLOB_CHUNK_BYTES } from '../files/blobs.repository.ts';
import { ifMatchVersions, strongTag, withCurrentTag } from '../http/etag.ts';
import { receiveUpload } from '../http/multipart-upload.ts';
import { negotiate, negotiateStored, type MediaType } from '../http/negotiation.ts';
import type { OperationHandlers, ReplyHeaders } from '../http/openapi-routes.ts';
import { MAX_UPLOAD_BYTES } from '../http/rest-area.ts';
import { parseSort } from '../http/sort-params.ts';
import type { Services } from '../services.ts';
import { IMAGE_HEAD_BYTES } from './images.ts';
import { priceToDecimal } from './money.ts';
import { PRODUCT_SEARCH_SORT_FIELDS, PRODUCT_SORT_FIELDS, type ProductPage } from './products.service.ts';
import {
  imageUrl,
  productPageCsv,
  productPageXml,
  productXml,
  toImageResponse,
  toPagedProductResponse,
  toProductResponse,
  type PagedProductResponse,
} from './products.v1.representation.ts';

type ProductHandlers = OperationHandlers<ProductsOperations>;

const PRODUCT_TYPES = ['application/json', 'application/xml'] as const;
const PAGE_TYPES = ['application/json', 'application/xml', 'text/csv'] as const;
/** A page in the negotiated type: the JSON body, or the CSV or XML text with its content type set. */
function pageIn(reply: ReplyHeaders, type: MediaType, page: ProductPage, number: number, size: number): PagedProductResponse | string {
  if (type === 'text/csv') {
    reply.type('text/csv; charset=utf-8');
    return productPageCsv(page);
  }
  const body = toPagedProductResponse(page, number, size);
  if (type !== 'application/xml') return body;
  reply.type('application/xml; charset=utf-8');
  return productPageXml(body);
}

/** The request URL's path without a trailing slash, for `Location` = request URL + `/{id}`. */
function requestPath(request: FastifyRequest): string {
  return request.url.split('?')[0]!.replace(/\/+$/, '');
}

export function productV1Handlers(services: Pick<Services, 'products'>): ProductHandlers {
  const products = services.products;
  return {
    listProducts: async (request, reply) => {
      // Negotiated before touching the database: a 406 costs no query.
      const type = negotiate(request, PAGE_TYPES);
      const { page = 0, size = 20, sort } = request.query;
      const orders = parseSort(sort, PRODUCT_SORT_FIELDS, [{ field: 'createdAt', direction: 'desc' }]);
      return pageIn(reply, type, await products.list({ orders, page, size }), page, size);
    },

    searchProducts: async (request, reply) => {
      const type = negotiate(request, PAGE_TYPES);
      const { q, minPrice, maxPrice, category, page = 0, size = 20, sort } = request.query;
      const orders = parseSort(sort, PRODUCT_SEARCH_SORT_FIELDS, [{ field: 'relevance', direction: 'desc' }]);
      const result = await products.search({ q, minPrice, maxPrice, category, orders, page, size });
      return pageIn(reply, type, result, page, size);
    },

    getProduct: async (request, reply) => {
      const type = negotiate(request, PRODUCT_TYPES);
      const product = await products.get(request.params.id);
      reply.header('ETag', strongTag(product.version));
      const body = toProductResponse(product);
      if (type === 'application/xml') return reply.type('application/xml; charset=utf-8').send(productXml(body));
      return body;
    },

    createProduct: async (request, reply) => {
      const body = request.body;
      const product = await products.create({ ...body, price: priceToDecimal(body.price) });
      reply
        .code(201)
        .header('Location', `${requestPath(request)}/${product.id}`)
        .header('ETag', strongTag(product.version));
      return toProductResponse(product);
    },

    replaceProduct: async (request, reply) => {
      const body = request.body;
      const expected = ifMatchVersions(request.headers['if-match']);
      const product = await withCurrentTag(
        reply,
        products.replace(request.params.id, { ...body, price: priceToDecimal(body.price) }, expected),
      );
      reply.header('ETag', strongTag(product.version));
      return toProductResponse(product);
    },

    patchProduct: async (request, reply) => {
      const { name, description, price, stockQuantity } = request.body;
      const expected = ifMatchVersions(request.headers['if-match']);
      const command = { name, description, price: price == null ? null : priceToDecimal(price), stockQuantity };
      const product = await withCurrentTag(reply, products.patch(request.params.id, command, expected));
      reply.header('ETag', strongTag(product.version));
      return toProductResponse(product);
    },

    deleteProduct: async (request, reply) => {
      await products.delete(request.params.id);
      return reply.code(204).send();
    },

    uploadProductImage: async (request, reply) => {
      // Fail fast on an unknown product before reading a possibly large body.
      await products.get(request.params.id);
      const upload = await receiveUpload(request, { field: 'file', maxBytes: MAX_UPLOAD_BYTES, headBytes: IMAGE_HEAD_BYTES });
      try {
        const image = await products.addImage(request.params.id, {
          head: upload.head,
          size: upload.size,
          content: upload.open(BLOB_CHUNK_BYTES),
        });
        reply.code(201).header('Location', imageUrl(image.product_id, image.id));
        return toImageResponse(image);
      } finally {
        await upload.discard();
      }
    },

    getProductImage: async (request, reply) => {
      const { image, content } = await products.getImage(request.params.id, request.params.imageId);
      negotiateStored(request, image.content_type);
      return (
        reply
          .type(image.content_type)
          .header('Content-Length', String(image.size))
          .header('Cache-Control', 'public, max-age=86400')
          // The type was detected from the bytes; nosniff keeps a browser from guessing another one.
          .header('X-Content-Type-Options', 'nosniff')
          .send(Readable.from(content))
      );
    },
  };
}
