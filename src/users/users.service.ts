/** Users: the rules of the content API's user record, independent of any transport. */
import type { UsersRow } from '../../generated/db/types.ts';
import type { Principal } from '../auth/principal.ts';
import type { Database } from '../db/database.ts';
import { inTransaction } from '../db/transaction.ts';
import { forbidden, isUniqueViolation, validationFailed } from '../errors.ts';
import { pageOf, type Page } from '../paging.ts';
import * as follows from './follows.repository.ts';
import type { SignUpBudget } from './sign-up-budget.ts';
import { directoryTenant } from './user-directory.ts';
import * as repo from './users.repository.ts';
import { userNotFound } from './users.repository.ts';
import { recordUserChanged, recordUserCreated, recordUserDeleted } from './user-events.ts';

interface CreateUserCommand {
  username: string;
  email: string;
  displayName: string;
  bio?: string | null;
}

/** Null or absent means "leave unchanged"; an empty bio clears it. */
interface UpdateUserCommand {
  displayName?: string | null;
  bio?: string | null;
  avatarUrl?: string | null;
}

export { userNotFound } from './users.repository.ts';

export class UsersService {
  constructor(
    private readonly db: Database,
    private readonly signUps: SignUpBudget,
  ) {}

  get(id: string): Promise<UsersRow> {
    return repo.requireUser(this.db, id);
  }

  /** The users `viewer` may list (user-directory.ts), a page at a time. */
  async list(viewer: Principal | null, page: number, size: number): Promise<Page<UsersRow>> {
    const { rows, total } = await repo.listUsers(this.db, directoryTenant(viewer), page * size, size);
    return pageOf(rows, page, size, total);
  }

  search(viewer: Principal | null, query: string, limit: number): Promise<UsersRow[]> {
    return repo.searchUsers(this.db, directoryTenant(viewer), query, limit);
  }

  all(viewer: Principal): Promise<UsersRow[]> {
    return repo.listAllUsers(this.db, directoryTenant(viewer));
  }

  /**
   * `createUser` from a client at `address`: one of the address's sign-ups is spent first (RateLimited
   * when none is left), then the user is created. A null address is a call from no client (a context a
   * test or the benchmark builds): nothing is counted.
   */
  async signUp(command: CreateUserCommand, address: string | null): Promise<UsersRow> {
    if (address !== null) await this.signUps.spend(address);
    return this.create(command);
  }

  /** The server's own creation of a user (seeding, tests): no budget. `user.created` in the same transaction. */
  async create(command: CreateUserCommand): Promise<UsersRow> {
    try {
      return await inTransaction(this.db, async (trx) => {
        const user = await repo.insertUser(trx, {
          username: command.username,
          email: command.email.toLowerCase(),
          display_name: command.displayName,
          bio: command.bio ?? null,
        });
        await recordUserCreated(trx, user);
        return user;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_tenant_username_uq'))
        throw validationFailed([{ field: ['username'], message: 'is already taken' }]);
      if (isUniqueViolation(error, 'users_tenant_email_uq'))
        throw validationFailed([{ field: ['email'], message: 'is already registered' }]);
      throw error;
    }
  }

  /** Users edit only themselves: ownership is checked before existence, so ids of others leak nothing. */
  async update(actor: Principal, id: string, command: UpdateUserCommand): Promise<UsersRow> {
    if (actor.userId !== id) throw forbidden();
    const changes: repo.UserChanges = {};
    if (command.displayName != null) changes.display_name = command.displayName;
    if (command.bio != null) changes.bio = command.bio === '' ? null : command.bio;
    if (command.avatarUrl != null) changes.avatar_url = command.avatarUrl;
    return inTransaction(this.db, async (trx) => {
      const before = await repo.findUserById(trx, id, true);
      if (!before) throw userNotFound(id);
      if (Object.keys(changes).length === 0) return before;
      const updated = (await repo.updateUser(trx, id, changes))!;
      await recordUserChanged(trx, before, updated);
      return updated;
    });
  }

  /**
   * A platform administrator deletes any user; a tenant's administrator (the resolver's @hasRole
   * lets only administrators here) the users of its own tenant, another tenant's being not found.
   * `deleteUser` (its cascades, decision 67) and `user.deleted` in one transaction, as SCIM's DELETE.
   */
  async delete(actor: Principal, id: string): Promise<true> {
    await inTransaction(this.db, async (trx) => {
      const deleted = await repo.deleteUser(trx, id, { tenantId: directoryTenant(actor) });
      if (!deleted) throw userNotFound(id);
      await recordUserDeleted(trx, deleted);
    });
    return true;
  }

  async follow(actor: Principal, userId: string): Promise<UsersRow> {
    if (actor.userId === userId) throw validationFailed([{ field: ['userId'], source: 'identifier', message: 'cannot follow yourself' }]);
    const [followee, follower] = await Promise.all([repo.findUserById(this.db, userId), repo.findUserById(this.db, actor.userId)]);
    if (!followee) throw userNotFound(userId);
    // Lists leave deactivated accounts out, so a new follow of one would be invisible.
    if (!followee.active) throw validationFailed([{ field: ['userId'], source: 'identifier', message: 'this account is deactivated' }]);
    // A token may name a user that no longer exists: the follow row needs a real follower.
    if (!follower) throw userNotFound(actor.userId);
    await follows.follow(this.db, actor.userId, userId);
    return followee;
  }

  async unfollow(actor: Principal, userId: string): Promise<UsersRow> {
    const followee = await this.get(userId);
    await follows.unfollow(this.db, actor.userId, userId);
    return followee;
  }
}
