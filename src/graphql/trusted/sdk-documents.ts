/**
 * The SDK's own operations (schema/operations/, as the SDK sends them), trusted without
 * registration: a server with GRAPHQL_TRUSTED_DOCUMENTS=true still serves every client built on
 * the SDK's shipped documents.
 */
import type { DocumentNode } from 'graphql';
import * as operations from '../../../generated/client/graphql.ts';

export function sdkDocuments(): DocumentNode[] {
  return Object.values(operations as Record<string, unknown>).filter(
    (value): value is DocumentNode => typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Document',
  );
}
