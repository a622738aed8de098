/** The product catalog's rules, shared by REST v1, REST v2 and anything else that needs products. */
import type { ProductImagesRow } from '../../generated/db/types.ts';
import type { Database } from '../db/database.ts';
import { inTransaction, type Executor } from '../db/transaction.ts';
import { acceptsVersion, type ExpectedVersions } from '../db/versioning.ts';
import { conflict, isUniqueViolation, notFound, validationFailed, VersionMismatch, type Violation } from '../errors.ts';
import type { StorageHeadroom } from '../db/storage-headroom.ts';
import { insertBlob, readBlob } from '../files/blobs.repository.ts';
import { detectImage, type StoredImageType } from './images.ts';
import * as repo from './products.repository.ts';
import { recordProductCreated, recordProductDeleted, recordProductUpdated } from './product-events.ts';

export type { ProductRecord, ProductAttribute, ProductPage, ProductSortField } from './products.repository.ts';

interface CreateProductCommand {
  name: string;
  description?: string | null;
  /** Decimal text with at most 2 fraction digits, e.g. "19.99". */
  price: string;
  sku: string;
  category: string;
  stockQuantity?: number;
  attributes?: repo.ProductAttribute[];
}

/** A full replacement has the fields and rules of creation; omitted optional fields are reset. */
type ReplaceProductCommand = CreateProductCommand;

/** null or undefined: leave unchanged. */
interface PatchProductCommand {
  name?: string | null;
  description?: string | null;
  price?: string | null;
  stockQuantity?: number | null;
}

interface ProductPageQuery {
  orders: repo.ProductQuery['orders'];
  page: number;
  size: number;
}

interface ProductSearchQuery extends ProductPageQuery {
  q: string;
  minPrice?: number;
  maxPrice?: number;
  category?: string;
}

interface NewImage {
  /** The first bytes of the content (at least IMAGE_HEAD_BYTES when the file is that long). */
  head: Uint8Array;
  /** The content's length in bytes (the upload is spooled first). */
  size: number;
  content: AsyncIterable<Uint8Array>;
}

interface StoredImage {
  image: ProductImagesRow & { content_type: StoredImageType };
  content: AsyncIterable<Buffer>;
}

/** Fields every list can sort by; search adds `relevance`. */
export const PRODUCT_SORT_FIELDS = ['name', 'price', 'sku', 'category', 'stockQuantity', 'createdAt', 'updatedAt'] as const;
export const PRODUCT_SEARCH_SORT_FIELDS = ['relevance', ...PRODUCT_SORT_FIELDS] as const;

export const productNotFound = (id: string) => notFound(`Product not found: ${id}`, 'PRODUCT_NOT_FOUND');
const duplicateSku = (sku: string) => conflict(`A product with SKU ${sku} already exists`, 'DUPLICATE_SKU');

/** Attribute keys are unique within a product; the later occurrence is reported. */
function checkAttributes(attributes: repo.ProductAttribute[] | undefined): void {
  const seen = new Set<string>();
  const violations: Violation[] = [];
  (attributes ?? []).forEach((a, i) => {
    if (seen.has(a.key)) violations.push({ field: ['attributes', i, 'key'], message: `duplicate attribute key "${a.key}"` });
    seen.add(a.key);
  });
  if (violations.length) throw validationFailed(violations);
}

/** Why a conditional update changed no row: the product is gone, or it has another version. */
async function refuseUpdate(db: Executor, id: string): Promise<never> {
  const current = await repo.productVersion(db, id);
  if (current === undefined) throw productNotFound(id);
  throw new VersionMismatch(current, `Product ${id}`);
}

function rowOf(command: CreateProductCommand): repo.NewProduct {
  return {
    name: command.name,
    description: command.description ?? null,
    price: command.price,
    sku: command.sku,
    category: command.category,
    stock_quantity: command.stockQuantity ?? 0,
  };
}

export class ProductsService {
  constructor(
    private readonly db: Database,
    private readonly headroom: StorageHeadroom = () => {},
  ) {}

  async get(id: string): Promise<repo.ProductRecord> {
    const product = await repo.findProductById(this.db, id);
    if (!product) throw productNotFound(id);
    return product;
  }

  async list(query: ProductPageQuery): Promise<repo.ProductPage> {
    const { rows, total } = await repo.pageProducts(this.db, query);
    return { items: rows, totalElements: total };
  }

  async search(query: ProductSearchQuery): Promise<repo.ProductPage> {
    if (query.minPrice !== undefined && query.maxPrice !== undefined && query.minPrice > query.maxPrice) {
      throw validationFailed([{ field: ['minPrice'], source: 'parameter', message: 'must not be greater than maxPrice' }]);
    }
    const { q, minPrice, maxPrice, category, ...paging } = query;
    const { rows, total } = await repo.pageProducts(this.db, { ...paging, search: { q, minPrice, maxPrice, category } });
    return { items: rows, totalElements: total };
  }

  async create(command: CreateProductCommand): Promise<repo.ProductRecord> {
    checkAttributes(command.attributes);
    try {
      return await inTransaction(this.db, async (trx) => {
        const id = await repo.insertProduct(trx, rowOf(command), command.attributes ?? []);
        const product = (await repo.findProductById(trx, id))!;
        await recordProductCreated(trx, product);
        return product;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateSku(command.sku);
      throw error;
    }
  }

  /** `expected`: the versions the caller's copy may have (If-Match); otherwise nothing changes. */
  async replace(id: string, command: ReplaceProductCommand, expected?: ExpectedVersions): Promise<repo.ProductRecord> {
    checkAttributes(command.attributes);
    try {
      return await inTransaction(this.db, async (trx) => {
        const before = await repo.findProductById(trx, id);
        if (!(await repo.updateProduct(trx, id, rowOf(command), expected))) await refuseUpdate(trx, id);
        await repo.replaceAttributes(trx, id, command.attributes ?? []);
        const after = (await repo.findProductById(trx, id))!;
        await recordProductUpdated(trx, before!, after);
        return after;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateSku(command.sku);
      throw error;
    }
  }

  async patch(id: string, command: PatchProductCommand, expected?: ExpectedVersions): Promise<repo.ProductRecord> {
    const changes: repo.ProductChanges = {};
    if (command.name != null) changes.name = command.name;
    if (command.description != null) changes.description = command.description;
    if (command.price != null) changes.price = command.price;
    if (command.stockQuantity != null) changes.stock_quantity = command.stockQuantity;
    if (Object.keys(changes).length === 0) {
      // Nothing is written, so comparing with what was just read is enough.
      const product = await this.get(id);
      if (!acceptsVersion(expected, product.version)) throw new VersionMismatch(product.version, `Product ${id}`);
      return product;
    }
    return inTransaction(this.db, async (trx) => {
      const before = await repo.findProductById(trx, id);
      if (!(await repo.updateProduct(trx, id, changes, expected))) await refuseUpdate(trx, id);
      const after = (await repo.findProductById(trx, id))!;
      await recordProductUpdated(trx, before!, after);
      return after;
    });
  }

  async delete(id: string): Promise<void> {
    const deleted = await inTransaction(this.db, async (trx) => {
      const product = await repo.findProductById(trx, id);
      if (!product || !(await repo.deleteProduct(trx, id))) return false;
      await recordProductDeleted(trx, product);
      return true;
    });
    if (!deleted) throw productNotFound(id);
  }

  /**
   * Stores an image after checking its bytes: only PNG, JPEG, GIF and WebP are accepted, whatever
   * the uploader claims. The product row is locked so a concurrent delete cannot orphan the image.
   */
  async addImage(productId: string, upload: NewImage): Promise<ProductImagesRow> {
    const detected = await detectImage(upload.head);
    this.headroom(upload.size);
    return inTransaction(this.db, async (trx) => {
      if (!(await repo.productExists(trx, productId, true))) throw productNotFound(productId);
      const blob = await insertBlob(trx, upload.content);
      return repo.insertImage(trx, {
        product_id: productId,
        blob_id: blob.id,
        content_type: detected.contentType,
        size: blob.size,
        width: detected.width,
        height: detected.height,
      });
    });
  }

  async getImage(productId: string, imageId: string): Promise<StoredImage> {
    const image = await repo.findImage(this.db, productId, imageId);
    if (!image) throw notFound(`Image not found: ${imageId}`, 'IMAGE_NOT_FOUND');
    return { image: image as StoredImage['image'], content: readBlob(this.db, image.blob_id) };
  }
}
