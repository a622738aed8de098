/** The product catalog's rules, shared by REST v1, REST v2 and anything else that needs products. */
import type { Database } from '../db/database.ts';
import { inTransaction } from '../db/transaction.ts';
import { conflict, isUniqueViolation, notFound } from '../errors.ts';
import * as repo from './products.repository.ts';

export type { ProductRecord, ProductAttribute } from './products.repository.ts';

export interface CreateProductCommand {
  name: string;
  description?: string | null;
  /** Decimal text with at most 2 fraction digits, e.g. "19.99". */
  price: string;
  sku: string;
  category: string;
  stockQuantity?: number;
  attributes?: repo.ProductAttribute[];
}

export const productNotFound = (id: string) => notFound(`Product not found: ${id}`, 'PRODUCT_NOT_FOUND');

export class ProductsService {
  constructor(private readonly db: Database) {}

  async get(id: string): Promise<repo.ProductRecord> {
    const product = await repo.findProductById(this.db, id);
    if (!product) throw productNotFound(id);
    return product;
  }

  async create(command: CreateProductCommand): Promise<repo.ProductRecord> {
    try {
      return await inTransaction(this.db, async (trx) => {
        const id = await repo.insertProduct(
          trx,
          {
            name: command.name,
            description: command.description ?? null,
            price: command.price,
            sku: command.sku,
            category: command.category,
            stock_quantity: command.stockQuantity ?? 0,
          },
          command.attributes ?? [],
        );
        return (await repo.findProductById(trx, id))!;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`A product with SKU ${command.sku} already exists`, 'DUPLICATE_SKU');
      throw error;
    }
  }
}
