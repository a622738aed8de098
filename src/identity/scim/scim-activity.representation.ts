/** admin.yaml's `ScimActivity` and its page, from `scim_activity` rows. */
import type { components } from '../../../generated/openapi/admin.ts';
import { pageMetadata } from '../../paging.ts';
import type { ScimActivityRecord } from './scim-activity.service.ts';

type ScimActivity = components['schemas']['ScimActivity'];
type ScimActivityPage = components['schemas']['ScimActivityPage'];

function toScimActivity(row: ScimActivityRecord): ScimActivity {
  return {
    id: row.id,
    at: row.at.toISOString(),
    method: row.method,
    operation: row.operation as ScimActivity['operation'],
    resourceType: row.resource_type as ScimActivity['resourceType'],
    resourceId: row.resource_id,
    resourceLabel: row.resource_label,
    status: row.status,
    outcome: row.outcome as ScimActivity['outcome'],
    scimType: row.scim_type,
    detail: row.detail,
  };
}

export function toScimActivityPage(
  result: { items: ScimActivityRecord[]; totalElements: number },
  number: number,
  size: number,
): ScimActivityPage {
  return { content: result.items.map(toScimActivity), page: pageMetadata(number, size, result.totalElements) };
}
