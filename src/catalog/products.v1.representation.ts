import { stringify } from 'csv-stringify/sync';
import type { components } from '../../generated/openapi/rest-v1.ts';
import { xmlNames } from '../../generated/openapi/rest-v1.xml.ts';
import { pageMetadata } from '../paging.ts';
import { toXml } from '../http/xml.ts';
import { decimalToPrice, formatPrice } from './money.ts';
import type { ProductImageSummary, ProductPage, ProductRecord } from './products.repository.ts';

type ProductResponse = components['schemas']['ProductResponse'];
type ImageResponse = components['schemas']['ImageResponse'];
export type PagedProductResponse = components['schemas']['PagedProductResponse'];

/** Prices in XML as in CSV, 2 decimals; the element names are the document's (xmlNames). */
const XML_SCALARS = { price: (value: string | number | boolean) => formatPrice(Number(value)) };

export const productPath = (productId: string) => `/api/v1/products/${productId}`;

export function imageUrl(productId: string, imageId: string): string {
  return `${productPath(productId)}/images/${imageId}`;
}

export function toImageResponse(image: ProductImageSummary): ImageResponse {
  return {
    id: image.id,
    productId: image.product_id,
    url: imageUrl(image.product_id, image.id),
    contentType: image.content_type as ImageResponse['contentType'],
    size: image.size,
    ...(image.width !== null ? { width: image.width } : {}),
    ...(image.height !== null ? { height: image.height } : {}),
    createdAt: new Date(image.created_at).toISOString(),
  };
}

export function toProductResponse(p: ProductRecord): ProductResponse {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    price: decimalToPrice(p.price),
    sku: p.sku,
    category: p.category as ProductResponse['category'],
    stockQuantity: p.stock_quantity,
    inStock: p.stock_quantity > 0,
    attributes: p.attributes,
    images: p.images.map(toImageResponse),
    createdAt: p.created_at.toISOString(),
    updatedAt: p.updated_at.toISOString(),
  };
}

export function toPagedProductResponse(page: ProductPage, number: number, size: number): PagedProductResponse {
  return { content: page.items.map(toProductResponse), page: pageMetadata(number, size, page.totalElements) };
}

export function productXml(product: ProductResponse): string {
  return toXml(product, { ...xmlNames.ProductResponse, scalars: XML_SCALARS });
}

export function productPageXml(page: PagedProductResponse): string {
  return toXml(page, { ...xmlNames.PagedProductResponse, scalars: XML_SCALARS });
}

/** The leading characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text cell a spreadsheet opening the CSV shows as text: one that could start a formula (a product
 * named `=HYPERLINK(...)` would run in the reader's spreadsheet) gets a leading `'`, as OWASP recommends.
 * Only for text cells: prices are numbers the server formats itself, never negative.
 */
function csvTextCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** What one CSV row shows of a product: the price as the API gives it (a number), not the stored decimal. */
interface CsvProduct {
  id: string;
  name: string;
  price: number;
  sku: string;
  category: string;
}

/**
 * CSV of products: `id,name,price,sku,category`, the price written by formatPrice like XML's, text cells
 * neutralised by csvTextCell, RFC 4180 quoting by csv-stringify, CRLF line ends. Exported apart from
 * productPageCsv for the mock server (scripts/mock/), which writes its examples' products with it.
 */
export function productsCsv(products: readonly CsvProduct[]): string {
  return stringify(
    products.map((p) => [p.id, csvTextCell(p.name), formatPrice(p.price), csvTextCell(p.sku), csvTextCell(p.category)]),
    { header: true, columns: ['id', 'name', 'price', 'sku', 'category'], record_delimiter: 'windows' },
  );
}

/** CSV of one page: its products only (the paging metadata has no place in a CSV). */
export function productPageCsv(page: ProductPage): string {
  return productsCsv(page.items.map((p) => ({ id: p.id, name: p.name, price: decimalToPrice(p.price), sku: p.sku, category: p.category })));
}
