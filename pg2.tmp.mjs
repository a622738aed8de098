import { PGlite } from '@electric-sql/pglite';
for (let i = 0; i < 3; i++) {
  let t = performance.now();
  const a = await PGlite.create();
  await a.query('select 1');
  console.log('empty', (performance.now() - t).toFixed(0));
  await a.close();
}
