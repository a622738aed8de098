/** Users: the rules of the content API's user record, independent of any transport. */
import type { UsersRow } from '../../generated/db/types.ts';
import type { Database } from '../db/database.ts';
import { conflict, isUniqueViolation, notFound } from '../errors.ts';
import { pageOf, type Page } from '../paging.ts';
import * as repo from './users.repository.ts';

export interface CreateUserCommand {
  username: string;
  email: string;
  displayName: string;
  bio?: string | null;
}

export const userNotFound = (id: string) => notFound(`User not found: ${id}`, 'USER_NOT_FOUND');

export class UsersService {
  constructor(private readonly db: Database) {}

  async get(id: string): Promise<UsersRow> {
    const user = await repo.findUserById(this.db, id);
    if (!user) throw userNotFound(id);
    return user;
  }

  async list(page: number, size: number): Promise<Page<UsersRow>> {
    const { rows, total } = await repo.listUsers(this.db, page * size, size);
    return pageOf(rows, page, size, total);
  }

  async create(command: CreateUserCommand): Promise<UsersRow> {
    try {
      return await repo.insertUser(this.db, {
        username: command.username,
        email: command.email.toLowerCase(),
        display_name: command.displayName,
        bio: command.bio ?? null,
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_tenant_username_uq')) throw conflict(`Username already taken: ${command.username}`, 'USERNAME_TAKEN');
      if (isUniqueViolation(error, 'users_tenant_email_uq')) throw conflict(`E-mail already registered: ${command.email}`, 'EMAIL_TAKEN');
      throw error;
    }
  }
}
