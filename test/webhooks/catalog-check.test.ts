/**
 * The check every webhook test's receiver makes (test/helpers/webhook-receiver.ts): each body it gets
 * must be what the event catalog (the `webhooks` section of openapi/webhooks.yaml) declares for its
 * `type`, fat or thin as the body is. The catalog's own examples pass; a body missing a required
 * field, of a type the catalog does not declare, or thin with a fat field is named with its type and
 * field; and a receiver that gets such a body fails the test it belongs to.
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import t, { type Test } from 'tap';
import { catalogViolation, startReceiver, testCa } from '../helpers/webhook-receiver.ts';

type Json = Record<string, any>;

const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../generated/openapi/webhooks.json'), 'utf8')) as Json;

/** The fat example of `type` in the catalog, a fresh copy. */
function example(type: string, form: 'fat' | 'thin' = 'fat'): Json {
  return structuredClone(doc.webhooks[type].post.requestBody.content['application/json'].examples[form].value) as Json;
}

t.test("every entry's examples, fat and thin, are what the catalog declares", async (t) => {
  for (const type of Object.keys(doc.webhooks)) {
    for (const form of ['fat', 'thin'] as const) {
      t.equal(catalogViolation(JSON.stringify(example(type, form))), undefined, `${type} ${form}`);
    }
  }
});

t.test('a body missing a required field is named with its type and the field', async (t) => {
  const body = example('order.created');
  delete body.data.object.status;
  const violation = catalogViolation(JSON.stringify(body));
  t.match(violation, /^order\.created \(fat body\) breaks its catalog schema OrderEvent: /);
  t.match(violation, /\/data\/object must have required property 'status'/);

  const product = example('product.deleted');
  delete product.created_at;
  t.match(catalogViolation(JSON.stringify(product)), /^product\.deleted \(fat body\).*must have required property 'created_at'/);

  const thin = example('order.shipped', 'thin');
  thin.data.object = { id: thin.data.object_id };
  t.match(
    catalogViolation(JSON.stringify(thin)),
    /^order\.shipped \(thin body\) breaks its catalog schema ThinEvent: \/data must NOT have additional properties/,
  );
});

t.test('a type the catalog does not declare, or a body that is not JSON, is refused', async (t) => {
  t.equal(
    catalogViolation(JSON.stringify({ ...example('order.created'), type: 'order.exploded' })),
    'event type "order.exploded" is not in the catalog (the webhooks section of openapi/webhooks.yaml)',
  );
  t.match(catalogViolation('{"type":'), /^the body is not JSON/);
});

t.test('a receiver that gets a body the catalog does not declare fails its test', async (t) => {
  const failures: string[] = [];
  const teardowns: (() => unknown)[] = [];
  // The receiver's test, standing in for tap's: what it is told to fail is recorded.
  const fake = {
    fail: (message: string) => failures.push(message),
    teardown: (fn: () => unknown) => teardowns.push(fn),
  } as unknown as Test;
  t.teardown(async () => {
    for (const fn of teardowns) await fn();
  });
  const receiver = await startReceiver(fake);
  const ca = (await testCa()).cert;
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const request = https.request(
        `${receiver.origin}/hook`,
        { method: 'POST', ca, headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  await post(JSON.stringify(example('product.created')));
  t.same(failures, [], 'a body the catalog declares passes');
  const broken = example('product.created');
  delete broken.data.object.sku;
  await post(JSON.stringify(broken));
  t.equal(failures.length, 1);
  t.match(
    failures[0],
    /^a delivery to \/hook is not what the event catalog declares: product\.created \(fat body\).*required property 'sku'/,
  );
});
