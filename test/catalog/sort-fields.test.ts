import t from 'tap';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { PRODUCT_SEARCH_SORT_FIELDS, PRODUCT_SORT_FIELDS } from '../../src/catalog/products.service.ts';
import { V2_SEARCH_SORT_FIELDS, V2_SORT_FIELDS } from '../../src/catalog/products.v2.handlers.ts';
import { ORDER_SORT_FIELDS } from '../../src/orders/orders.service.ts';

// The documents list each operation's sortable fields in `x-sort-fields`; the code must accept exactly those.
t.test('x-sort-fields in the OpenAPI documents match what the handlers accept', async (t) => {
  const v1 = loadOpenApiDocument('rest-v1');
  const v2 = loadOpenApiDocument('rest-v2');
  t.same([...v1.paths['/api/v1/products'].get['x-sort-fields']].sort(), [...PRODUCT_SORT_FIELDS].sort());
  t.same([...v1.paths['/api/v1/products/search'].get['x-sort-fields']].sort(), [...PRODUCT_SEARCH_SORT_FIELDS].sort());
  t.same([...v1.paths['/api/v1/orders'].get['x-sort-fields']].sort(), [...ORDER_SORT_FIELDS].sort());
  t.same([...v2.paths['/api/v2/products'].get['x-sort-fields']].sort(), [...V2_SORT_FIELDS].sort());
  t.same([...v2.paths['/api/v2/products/search'].get['x-sort-fields']].sort(), [...V2_SEARCH_SORT_FIELDS].sort());
});
