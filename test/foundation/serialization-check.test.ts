// test-suite: once (the check is the HTTP layer's: no query reaches the database).
/**
 * The tests' servers check every schema-serialised answer against JSON.stringify of the value the
 * handler answered (test/helpers/serialization-check.ts, decision 140): a member the response schema
 * lacks, which fast-json-stringify would drop without a word, fails the request with a 500 instead of
 * passing unseen; an answer the schema describes whole passes as it is.
 */
import t from 'tap';
import { startServer } from '../helpers/server.ts';

const server = await startServer(t, {
  configure: (app) => {
    const response = { 200: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } };
    app.http.get('/probe/whole', { schema: { response } }, async () => ({ name: 'kept' }));
    app.http.get('/probe/extra', { schema: { response } }, async () => ({ name: 'kept', price: 9.99 }));
  },
});

t.test('an answer the response schema describes whole is sent as it is', async (t) => {
  const res = await fetch(`${server.baseUrl}/probe/whole`);
  t.equal(res.status, 200);
  t.same(await res.json(), { name: 'kept' });
});

t.test('a member the response schema lacks fails the request instead of being dropped', async (t) => {
  const res = await fetch(`${server.baseUrl}/probe/extra`);
  t.equal(res.status, 500, 'the serialiser would have dropped `price`');
});
