/**
 * Discovery (RFC 7644 §4): what this service provider supports, stated from the same facts the code
 * runs on: the attribute table of scim-schema.ts and the list maximum of scim-list.ts.
 */
import { SCIM_MAX_RESULTS } from './scim-list.ts';
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, SCHEMAS, USER_SCHEMA, type AttributeDefinition, type ResourceKind } from './scim-schema.ts';

import type { components } from '../../../generated/openapi/scim.ts';

type Schemas = components['schemas'];

const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export function serviceProviderConfig(baseUrl: string): Schemas['ServiceProviderConfig'] {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: `${baseUrl}/openapi/scim.yaml`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: true },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: "A SCIM token of the tenant, issued by the admin API: 'Authorization: Bearer <token>'.",
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/scim/v2/ServiceProviderConfig` },
  };
}

const RESOURCE_TYPES: Record<ResourceKind, { endpoint: string; schema: string; description: string; extensions: string[] }> = {
  User: { endpoint: '/Users', schema: USER_SCHEMA, description: 'User account', extensions: [ENTERPRISE_SCHEMA] },
  Group: { endpoint: '/Groups', schema: GROUP_SCHEMA, description: 'Group', extensions: [] },
};

export function resourceTypes(baseUrl: string): Schemas['ResourceType'][] {
  return (Object.keys(RESOURCE_TYPES) as ResourceKind[]).map((name) => {
    const type = RESOURCE_TYPES[name];
    return {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: name,
      name,
      description: type.description,
      endpoint: type.endpoint,
      schema: type.schema,
      ...(type.extensions.length ? { schemaExtensions: type.extensions.map((schema) => ({ schema, required: false })) } : {}),
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/scim/v2/ResourceTypes/${name}` },
    };
  });
}

/** An attribute as RFC 7643 §7 publishes it: without where it is stored (a key kept in place keeps its position). */
function published(attribute: AttributeDefinition): Schemas['SchemaAttribute'] {
  const { stored: _stored, ...rest } = attribute;
  return attribute.subAttributes ? { ...rest, subAttributes: attribute.subAttributes.map(published) } : rest;
}

export function schemas(baseUrl: string): Schemas['Schema'][] {
  return SCHEMAS.map((schema) => ({
    schemas: [SCHEMA_SCHEMA],
    id: schema.id,
    name: schema.name,
    description: schema.description,
    attributes: schema.attributes.map(published),
    meta: { resourceType: 'Schema', location: `${baseUrl}/scim/v2/Schemas/${schema.id}` },
  }));
}
