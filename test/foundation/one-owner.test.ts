/**
 * One owner per embedded data folder, and one server per port: a second `npm start` beside a running
 * one (or `npm run migrate` on its folder) refuses with one line and touches nothing, and no write the
 * first one answered is lost. The embedded database only: these are processes of their own, each on a
 * copy of a migrated data folder (creating one is tested where a server starts on an empty folder:
 * lifecycle.test.ts), started with `node dist/src/main.js` but for one `npm start`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { ensureDistBuilt, graphqlAt, migratedDataFolder, root, startServerProcess } from '../helpers/server-process.ts';
import { freePort } from '../../scripts/lib/free-port.ts';

ensureDistBuilt();

function dataFolder(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-owner-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const embedded = (dataDir: string) => ({ DATA_DIR: dataDir, DATABASE_URL: '' });

async function createUser(base: string, username: string): Promise<void> {
  const created = await graphqlAt(
    base,
    `mutation { createUser(input: {username: "${username}", email: "${username}@example.com", displayName: "${username}"}) { id } }`,
  );
  if (!created.body.data?.createUser?.id) throw new Error(`createUser failed: ${JSON.stringify(created.body)}`);
}

async function usernames(base: string): Promise<string[]> {
  const listed = await graphqlAt(base, '{ users(size: 50) { content { username } } }');
  return (listed.body.data.users.content as { username: string }[]).map((u) => u.username).sort();
}

// One data folder through a refused second start, a clean stop and a kill -9, and the last of its
// servers beside one on another folder: each server start on the embedded database costs seconds of CPU.
t.test(
  'a second server on the same data folder refuses with one line naming the folder and the owner; nothing is lost, a clean stop or a kill -9',
  async (t) => {
    const dataDir = await migratedDataFolder(t);
    const first = await startServerProcess({ env: embedded(dataDir), via: 'node' });
    t.teardown(() => void first.child.kill('SIGKILL'));
    await createUser(first.base, 'before');

    const second = await startServerProcess({ env: embedded(dataDir), via: 'node', noWait: true });
    t.equal(await second.exited, 1, 'the second start exits 1');
    const lines = second.stderr().trim().split('\n');
    t.equal(lines.length, 1, `one line: ${second.stderr()}`);
    t.equal(
      lines[0],
      `error: cannot open the database (pglite-file): the data folder ${path.join(dataDir, 'pglite')} is in use by process ` +
        `${first.child.pid}; stop that process or set DATA_DIR to another folder`,
    );

    // `npm run migrate` is refused the same way.
    const migrate = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts'], {
      cwd: root,
      env: { ...process.env, ...embedded(dataDir) },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    t.equal(migrate.code, 1, 'npm run migrate exits 1');
    t.match(migrate.stderr, new RegExp(`^error: the data folder \\S+ is in use by process ${first.child.pid};`));

    // The first server did not notice: it keeps serving, and every write it answered survives its restart.
    await createUser(first.base, 'after');
    first.child.kill('SIGTERM');
    t.equal(await first.exited, 0);
    t.notOk(fs.existsSync(path.join(dataDir, 'pglite.lock')), 'a clean stop leaves no lock');
    const restarted = await startServerProcess({ env: embedded(dataDir), via: 'node' });
    t.teardown(() => void restarted.child.kill('SIGKILL'));
    t.same(await usernames(restarted.base), ['after', 'before']);

    // The lock of a process that died (kill -9) is taken over, and what it acknowledged is there.
    await createUser(restarted.base, 'acknowledged');
    restarted.child.kill('SIGKILL');
    await restarted.exited;
    t.ok(fs.existsSync(path.join(dataDir, 'pglite.lock')), 'kill -9 left its lock behind');
    const next = await startServerProcess({ env: embedded(dataDir), via: 'node' });
    t.teardown(() => void next.child.kill('SIGKILL'));
    t.same(await usernames(next.base), ['acknowledged', 'after', 'before'], 'the acknowledged write is there');
    t.equal(JSON.parse(fs.readFileSync(path.join(dataDir, 'pglite.lock'), 'utf8')).pid, next.child.pid, 'the lock is the new process’s');

    await t.test('two servers from one checkout on other ports and folders run side by side', async (t) => {
      // The other as the operator types it (npm start); `next` was started directly.
      const other = await startServerProcess({ env: embedded(await migratedDataFolder(t)), via: 'npm' });
      t.teardown(() => void other.child.kill('SIGKILL'));
      await createUser(other.base, 'only_in_other');
      t.same(await usernames(other.base), ['only_in_other']);
      t.same(await usernames(next.base), ['acknowledged', 'after', 'before'], 'the first folder’s server sees its own users only');
      other.child.kill('SIGTERM');
      next.child.kill('SIGTERM');
      t.same(await Promise.all([other.exited, next.exited]), [0, 0]);
    });
  },
);

t.test('a port in use is one line, said before the data folder is touched', async (t) => {
  const dataDir = dataFolder(t);
  const port = await freePort();
  const holder = net.createServer().listen(port, '127.0.0.1');
  await new Promise((resolve) => holder.once('listening', resolve));
  t.teardown(() => void holder.close());

  const refused = await startServerProcess({ env: embedded(dataDir), via: 'node', port, noWait: true });
  t.equal(await refused.exited, 1);
  t.equal(refused.stderr(), `error: port ${port} is in use; set PORT\n`);
  t.same(fs.readdirSync(dataDir), [], 'the data folder was not touched');
});
