// test-suite: once
/**
 * The credential cache's rules, on a store whose answers and epoch reads the test controls: a kept
 * answer is used only when an epoch read issued after the request arrived equals the answer's; a
 * request arriving while a read is in flight waits for the next one; refused session tokens are not
 * kept; an expired session is not used; a kept session's use is still recorded to the minute.
 * (The same rules against a real database: revocation-race.test.ts.)
 */
import t from 'tap';
import { CachedCredentialStore, type EpochedCredentialStore, type EpochedSession } from '../../src/auth/credential-cache.ts';
import type { SubjectStatus } from '../../src/auth/credentials.ts';

const GOOD = 'sfsess_good';

class FakeStore implements EpochedCredentialStore {
  readonly lastSeenResolutionMs = 60_000;
  epoch = 1;
  sessionReads = 0;
  subjectReads = 0;
  touches = 0;
  expiresAt = new Date(Date.now() + 3_600_000);
  lastSeenAt = new Date();
  /** Epoch reads not yet answered: each answers the epoch as of when it was issued (its snapshot). */
  pending: (() => void)[] = [];
  epochReads = 0;
  holdEpochReads = false;

  async readSession(token: string): Promise<EpochedSession | null> {
    this.sessionReads++;
    if (token !== GOOD) return null;
    const value = { sessionId: 's1', userId: 'u1', tenantId: 'default', roles: [], expiresAt: this.expiresAt };
    return { value, epoch: this.epoch, lastSeenAt: this.lastSeenAt };
  }

  async readSubject(): Promise<{ value: SubjectStatus; epoch: number }> {
    this.subjectReads++;
    return { value: { kind: 'active', tenantId: 'default', roles: [] }, epoch: this.epoch };
  }

  credentialEpoch(): Promise<number> {
    this.epochReads++;
    if (!this.holdEpochReads) return Promise.resolve(this.epoch);
    const snapshot = this.epoch;
    return new Promise((resolve) => this.pending.push(() => resolve(snapshot)));
  }

  async touch(): Promise<void> {
    this.touches++;
  }

  answerEpochReads(): void {
    const pending = this.pending;
    this.pending = [];
    for (const answer of pending) answer();
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

t.test('a kept answer is used while the epoch stands, read again once it moved', async (t) => {
  const store = new FakeStore();
  const cache = new CachedCredentialStore(store);
  t.match(await cache.sessionForToken(GOOD), { sessionId: 's1' });
  t.match(await cache.sessionForToken(GOOD), { sessionId: 's1' });
  t.equal(store.sessionReads, 1, 'the second request used the kept answer');
  t.equal(store.epochReads, 1, 'after reading the epoch');
  store.epoch = 2;
  await cache.sessionForToken(GOOD);
  t.equal(store.sessionReads, 2, 'the epoch moved: the session is read again');
  await cache.subjectStatus('u1');
  await cache.subjectStatus('u1');
  t.equal(store.subjectReads, 1, 'subjects are kept the same way');
  store.epoch = 3;
  await cache.subjectStatus('u1');
  t.equal(store.subjectReads, 2);
});

t.test('a request arriving while an epoch read is in flight waits for the next read', async (t) => {
  const store = new FakeStore();
  const cache = new CachedCredentialStore(store);
  await cache.sessionForToken(GOOD);
  store.holdEpochReads = true;
  const first = cache.sessionForToken(GOOD);
  await tick();
  t.equal(store.epochReads, 1, 'the first request issued a read');
  // Revoked after that read was issued, before the next request arrives.
  store.epoch = 2;
  const second = cache.sessionForToken(GOOD);
  const third = cache.sessionForToken(GOOD);
  await tick();
  t.equal(store.epochReads, 1, 'the later requests did not join the read in flight');
  store.answerEpochReads();
  t.match(await first, { sessionId: 's1' }, 'the first request, which arrived before the change, used the kept answer');
  await tick();
  t.equal(store.epochReads, 2, 'one more read, issued after they arrived, shared by both');
  store.answerEpochReads();
  await Promise.all([second, third]);
  t.equal(store.sessionReads, 3, 'both saw the new epoch and read the session again (the kept answer was refused)');
});

t.test('refused tokens are not kept, expired sessions are not used, uses are recorded to the minute', async (t) => {
  const store = new FakeStore();
  const cache = new CachedCredentialStore(store);
  t.equal(await cache.sessionForToken('sfsess_junk'), null);
  t.equal(await cache.sessionForToken('sfsess_junk'), null);
  t.equal(store.sessionReads, 2, 'a refused token is read every time');
  t.equal(store.epochReads, 0);

  store.lastSeenAt = new Date(Date.now() - 61_000);
  await cache.sessionForToken(GOOD);
  await cache.sessionForToken(GOOD);
  await cache.sessionForToken(GOOD);
  t.equal(store.touches, 1, 'a kept session whose last use is over a minute old is touched once');

  store.expiresAt = new Date(Date.now() - 1);
  const expired = new CachedCredentialStore(store);
  await expired.sessionForToken(GOOD);
  await expired.sessionForToken(GOOD);
  t.equal(store.sessionReads, 5, 'an expired kept session is read again, not used');
});
