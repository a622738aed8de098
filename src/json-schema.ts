/**
 * The one JSON Schema validator configuration: ajv (draft 2020-12) with the ajv-formats formats in
 * their full mode. `npm run generate` precompiles the REST request validators with it
 * (scripts/generate/openapi.ts) and the GraphQL @constraint directive compiles its rules with it
 * (src/graphql/directives.constraint.ts), so a rule such as `format: email` is the same rule on both
 * transports: JSON Schema's `email` (an RFC 5321 mailbox, ASCII only; `idn-email` is not offered).
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type JsonSchemaValidator = InstanceType<typeof Ajv2020.default>;
type JsonSchemaOptions = ConstructorParameters<typeof Ajv2020.default>[0];

export function createJsonSchemaValidator(options: JsonSchemaOptions = {}): JsonSchemaValidator {
  const ajv = new Ajv2020.default({ strict: false, ...options });
  addFormats.default(ajv);
  return ajv;
}
