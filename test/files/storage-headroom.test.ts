/**
 * The embedded database does not survive a full disk (docs/reliability.md, "Disk full"), so uploads
 * are refused with 507 while storing them would leave less than 64 MiB free. The end-to-end run on a
 * real small disk is `npm run faults -- disk-full`; this pins the rule.
 */
import t from 'tap';
import { RESERVE_BYTES, storageHeadroom } from '../../src/db/storage-headroom.ts';
import { AppError } from '../../src/errors.ts';
import { toProblem } from '../../src/http/problem.ts';

const MiB = 1024 * 1024;
const disk = (freeBytes: number) => () => ({ bavail: freeBytes / 4096, bsize: 4096 });

t.test('the embedded database keeps 64 MiB free, counting an upload twice', async (t) => {
  const target = { kind: 'pglite-file', dataDir: '/data/pglite' } as const;
  t.doesNotThrow(() => storageHeadroom(target, disk(RESERVE_BYTES + 10 * MiB))(5 * MiB), 'room for 5 MB twice and the reserve');
  let refusal: unknown;
  try {
    storageHeadroom(target, disk(RESERVE_BYTES + 9 * MiB))(5 * MiB);
  } catch (error) {
    refusal = error;
  }
  t.ok(refusal instanceof AppError && refusal.code === 'INSUFFICIENT_STORAGE', '1 MiB short of the reserve and twice the upload: refused');
  t.match(toProblem(refusal, '/api/v1/files'), { status: 507, type: '/problems/insufficient-storage' });
});

t.test('in memory and on PostgreSQL there is no disk of ours to check', async (t) => {
  const full = () => ({ bavail: 0, bsize: 4096 });
  t.doesNotThrow(() => storageHeadroom({ kind: 'pglite-memory' }, full)(10 * MiB));
  t.doesNotThrow(() => storageHeadroom({ kind: 'postgres', url: 'postgres://x' }, full)(10 * MiB));
  t.match(toProblem(Object.assign(new Error('could not extend file'), { code: '53100' }), '/api/v1/files'), {
    status: 507,
    type: '/problems/insufficient-storage',
  });
});
