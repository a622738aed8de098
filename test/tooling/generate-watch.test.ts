/**
 * `npm run generate -- --watch` on a scratch copy of the project: it generates once, then again when
 * a spec changes, and the new output carries the change.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { scratchProject } from '../helpers/scratch-project.ts';

t.test('regenerates when a spec changes', async (t) => {
  const dir = scratchProject(t, 'watch');
  const out = path.join(dir, 'out');

  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/generate.ts', '--watch', '--out', out], { cwd: dir });
  t.teardown(() => child.kill());
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const runs = () => (output.match(/^generated \d+ files/gm) ?? []).length;
  const until = async (what: string, done: () => boolean) => {
    for (let waited = 0; !done(); waited += 100) {
      if (waited > 60_000 || child.exitCode !== null) throw new Error(`${what}; output so far:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  await until('no first generation', () => runs() === 1 && output.includes('watching'));
  const spec = path.join(dir, 'openapi/ops.yaml');
  fs.writeFileSync(spec, fs.readFileSync(spec, 'utf8').replace(/^(info:\n(?:.*\n)*? {2}title: ).*$/m, '$1Watched title'));
  await until('no second generation after the change', () => runs() === 2);
  t.match(output, /changed: openapi\/ops\.yaml/);
  const doc = JSON.parse(fs.readFileSync(path.join(out, 'openapi/ops.json'), 'utf8')) as { info: { title: string } };
  t.equal(doc.info.title, 'Watched title', 'the new output has the change');
});
