import { PGlite } from '@electric-sql/pglite';
import fs from 'node:fs';
const file = fs.readdirSync('/tmp/schemaforge-test-templates').find(f => f.endsWith('.tar'));
const blob = new Blob([fs.readFileSync('/tmp/schemaforge-test-templates/' + file)]);
for (let i = 0; i < 3; i++) {
  let t = performance.now();
  const a = await PGlite.create({ loadDataDir: blob });
  await a.query('select 1');
  console.log('snapshot', (performance.now() - t).toFixed(0));
  t = performance.now();
  await a.close();
  console.log('close', (performance.now() - t).toFixed(0));
}
