/**
 * Credential answers kept in memory, and still the database's answer on every use (decision 151).
 *
 * Every change that can alter what a credential stands for raises the credential epoch in its own
 * transaction (migration 0019's triggers, whoever writes: a service, SCIM, plain SQL). An answer is
 * stored with the epoch read in the same statement, so from the same snapshot. Before a kept answer
 * is used, the epoch is read again by a statement issued after the request arrived (the fence); if
 * it has not moved, no change to any credential committed between the answer's snapshot and the
 * fence's, and the fence's snapshot holds every commit that finished before the request arrived: the
 * kept answer is what the credential query would have said. Otherwise the query runs again.
 *
 * The fence is one `select epoch` shared by every request that arrives while it is being prepared:
 * a request that arrives while one is in flight waits for the next (the one in flight may have
 * taken its snapshot before the request arrived), so under load many requests share one read.
 * Nothing depends on notifications being delivered, or delivered in time.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CredentialStore, SessionCredential, SubjectStatus } from './credentials.ts';

/** A store answer with the credential epoch of the snapshot it was read from. */
export interface Epoched<T> {
  value: T;
  epoch: number;
}

export interface EpochedSession extends Epoched<SessionCredential> {
  /** When the session's use was last recorded (`last_seen_at`). */
  lastSeenAt: Date;
}

/** The database side: src/identity/sign-in/sessions.service.ts. */
export interface EpochedCredentialStore {
  readSession(token: string): Promise<EpochedSession | null>;
  readSubject(userId: string): Promise<Epoched<SubjectStatus>>;
  credentialEpoch(): Promise<number>;
  /** Records a use of a session answered from memory. */
  touch(sessionId: string): Promise<void>;
  /** How stale `last_seen_at` may be before a use is recorded again. */
  readonly lastSeenResolutionMs: number;
}

/** Shares one epoch read among the requests that arrive while the next read is being issued. */
class EpochFence {
  private inFlight: Promise<number> | null = null;
  private next: Promise<number> | null = null;

  constructor(private readonly read: () => Promise<number>) {}

  /** The epoch as of a snapshot taken after this call. */
  after(): Promise<number> {
    if (!this.inFlight) return this.issue();
    // The read in flight may predate this caller; the next one is issued once it settles.
    this.next ??= this.inFlight.then(
      () => this.issue(),
      () => this.issue(),
    );
    return this.next;
  }

  private issue(): Promise<number> {
    this.next = null;
    const read = this.read().finally(() => {
      if (this.inFlight === read) this.inFlight = null;
    });
    this.inFlight = read;
    return read;
  }
}

type Kept = { kind: 'session'; answer: EpochedSession } | { kind: 'subject'; answer: Epoched<SubjectStatus> };

const DEFAULT_ENTRIES = 10_000;

export class CachedCredentialStore implements CredentialStore {
  private readonly fence: EpochFence;
  /**
   * Valid sessions by the token's digest (a heap dump shows no token), and subjects by user id.
   * Refused session tokens are not kept: anyone can send those, and they would evict the rest.
   */
  private readonly kept: LRUCache<string, Kept>;

  constructor(
    private readonly store: EpochedCredentialStore,
    options: { entries?: number } = {},
  ) {
    this.fence = new EpochFence(() => store.credentialEpoch());
    this.kept = new LRUCache({ max: options.entries ?? DEFAULT_ENTRIES });
  }

  async sessionForToken(token: string): Promise<SessionCredential | null> {
    const key = `s:${createHash('sha256').update(token).digest('base64url')}`;
    const kept = this.kept.get(key);
    if (kept?.kind === 'session' && kept.answer.value.expiresAt.getTime() > Date.now()) {
      if ((await this.fence.after()) === kept.answer.epoch) {
        await this.recordUse(kept.answer);
        return kept.answer.value;
      }
    }
    const answer = await this.store.readSession(token);
    if (answer) this.kept.set(key, { kind: 'session', answer });
    else this.kept.delete(key);
    return answer?.value ?? null;
  }

  async subjectStatus(userId: string): Promise<SubjectStatus> {
    const key = `u:${userId}`;
    const kept = this.kept.get(key);
    if (kept?.kind === 'subject' && (await this.fence.after()) === kept.answer.epoch) return kept.answer.value;
    const answer = await this.store.readSubject(userId);
    this.kept.set(key, { kind: 'subject', answer });
    return answer.value;
  }

  /** `last_seen_at` stays as fresh as when every use was read from the database. */
  private async recordUse(answer: EpochedSession): Promise<void> {
    if (Date.now() - answer.lastSeenAt.getTime() < this.store.lastSeenResolutionMs) return;
    answer.lastSeenAt = new Date();
    await this.store.touch(answer.value.sessionId);
  }
}
