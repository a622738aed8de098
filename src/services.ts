/** Every area's service over one database handle: what transports (REST, GraphQL, workers) call. */
import { ProductsService } from './catalog/products.service.ts';
import { UsersService } from './content/users.service.ts';
import type { Database } from './db/database.ts';

export interface Services {
  users: UsersService;
  products: ProductsService;
}

export function createServices(db: Database): Services {
  return {
    users: new UsersService(db),
    products: new ProductsService(db),
  };
}
