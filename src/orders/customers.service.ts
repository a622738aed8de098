/** Customers: owned by the user account that created them; orders are placed for a customer. */
import type { Principal } from '../auth/principal.ts';
import type { Database } from '../db/database.ts';
import { conflict, isUniqueViolation, notFound } from '../errors.ts';
import { assertCustomerAccess } from './access.ts';
import * as repo from './customers.repository.ts';

export const customerNotFound = (id: string) => notFound(`Customer not found: ${id}`, 'CUSTOMER_NOT_FOUND');

export class CustomersService {
  constructor(private readonly db: Database) {}

  async create(actor: Principal, input: { name: string; email: string }): Promise<repo.CustomerRecord> {
    try {
      return await repo.insertCustomer(this.db, { name: input.name, email: input.email, user_id: actor.userId });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`A customer with e-mail ${input.email} already exists`, 'DUPLICATE_EMAIL');
      throw error;
    }
  }

  async get(actor: Principal, id: string): Promise<repo.CustomerRecord> {
    const customer = await repo.findCustomer(this.db, id);
    if (!customer) throw customerNotFound(id);
    assertCustomerAccess(actor, customer.user_id);
    return customer;
  }
}
