import type { Migration } from 'kysely';
import * as m0001 from './0001_users_and_products.ts';
import * as m0002 from './0002_content.ts';
import * as m0003 from './0003_commerce_and_files.ts';
import * as m0004 from './0004_post_list_indexes.ts';
import * as m0005 from './0005_post_tag_position.ts';
import * as m0006 from './0006_product_version.ts';
import * as m0007 from './0007_post_metadata.ts';
import * as m0008 from './0008_tenants_and_scim_tokens.ts';
import * as m0009 from './0009_scim_resources.ts';
import * as m0010 from './0010_sessions.ts';
import * as m0011 from './0011_webhooks.ts';
import * as m0012 from './0012_single_sign_on.ts';
import * as m0013 from './0013_scim_provisioned_values.ts';
import * as m0014 from './0014_sign_in_browser_binding.ts';
import * as m0015 from './0015_local_address_proof.ts';
import * as m0016 from './0016_files_by_uploader.ts';
import * as m0017 from './0017_user_deletion.ts';
import * as m0018 from './0018_event_resource_path.ts';
import * as m0019 from './0019_credential_epoch.ts';
import * as m0020 from './0020_trusted_documents.ts';
import * as m0021 from './0021_endpoint_rate_limit.ts';
import * as m0022 from './0022_tenant_webhooks.ts';
import * as m0023 from './0023_saml_metadata_refresh.ts';
import * as m0024 from './0024_portal.ts';
import * as m0025 from './0025_saml_sp_keys.ts';
import * as m0027 from './0027_single_logout.ts';
import * as m0028 from './0028_scim_activity.ts';
import * as m0029 from './0029_last_test_sign_in.ts';

/** Every migration, in order. Names sort lexically; add new files here. */
export const migrations: Record<string, Migration> = {
  '0001_users_and_products': m0001,
  '0002_content': m0002,
  '0003_commerce_and_files': m0003,
  '0004_post_list_indexes': m0004,
  '0005_post_tag_position': m0005,
  '0006_product_version': m0006,
  '0007_post_metadata': m0007,
  '0008_tenants_and_scim_tokens': m0008,
  '0009_scim_resources': m0009,
  '0010_sessions': m0010,
  '0011_webhooks': m0011,
  '0012_single_sign_on': m0012,
  '0013_scim_provisioned_values': m0013,
  '0014_sign_in_browser_binding': m0014,
  '0015_local_address_proof': m0015,
  '0016_files_by_uploader': m0016,
  '0017_user_deletion': m0017,
  '0018_event_resource_path': m0018,
  '0019_credential_epoch': m0019,
  '0020_trusted_documents': m0020,
  '0021_endpoint_rate_limit': m0021,
  '0022_tenant_webhooks': m0022,
  '0023_saml_metadata_refresh': m0023,
  '0024_portal': m0024,
  '0025_saml_sp_keys': m0025,
  '0027_single_logout': m0027,
  '0028_scim_activity': m0028,
  '0029_last_test_sign_in': m0029,
};
