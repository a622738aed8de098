/**
 * Runs the SAML metadata refresh (./metadata-refresh.ts) in a process: at a random point between 5
 * and 60 minutes after start, then every hour. A background job of the processes, started by the composition roots
 * (src/server.ts, src/worker.ts) as the sign-in state sweep is; any number may run on one database.
 * The hourly tick is not the refresh age: a provider is read when its last success is older than
 * SAML_METADATA_REFRESH_S (6 to 24 hours), and a failing one again an hour after its last attempt.
 */
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { SamlMetadataRefresh } from './metadata-refresh.ts';
import { createProviderFetch } from './provider-fetch.ts';

const TICK_MS = 60 * 60_000;
/**
 * The first run comes at a random point between these: instances started together do not all query
 * at once, and none runs in a process's first minutes, when nothing can be due that an hour's wait
 * would harm (a provider is read 6 to 24 hours after its last success) and when a test measuring a
 * request's statements would count the job's.
 */
const FIRST_RUN_AFTER_MS = { min: 5 * 60_000, max: TICK_MS };

interface Log {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface MetadataRefreshJob {
  /** No more runs; resolves once a run under way has finished (the database may close then). */
  stop(): Promise<void>;
}

/** The refresh over the process's database, with the outbound policy of identity providers. */
export function metadataRefreshFor(
  db: Database,
  secrets: SecretBox,
  config: Pick<Config, 'allowInsecureIdp' | 'dnsResolver' | 'baseUrl'>,
): SamlMetadataRefresh {
  const fetch = createProviderFetch({ allowInsecureIdp: config.allowInsecureIdp, dnsResolver: config.dnsResolver });
  return new SamlMetadataRefresh(db, secrets, { fetch, allowInsecureIdp: config.allowInsecureIdp, baseUrl: config.baseUrl });
}

export function startMetadataRefresh(refresh: SamlMetadataRefresh, log: Log, maxAgeS: number): MetadataRefreshJob {
  let running: Promise<void> | null = null;
  const run = () => {
    // One run at a time: a slow one is not joined by the next.
    running ??= refresh
      .refreshDue({ maxAgeS, retryAfterS: TICK_MS / 1000 })
      .then((outcomes) => {
        for (const { tenantId, result, error, unexpected } of outcomes) {
          if (result === 'failed')
            log.warn({ tenantId, err: unexpected, reason: error }, 'SAML metadata refresh failed; the settings are kept');
          else if (result === 'updated') log.info({ tenantId }, 'SAML metadata refresh: the provider’s settings changed');
        }
      })
      .catch((error: unknown) => log.warn({ err: error }, 'the SAML metadata refresh failed'))
      .finally(() => {
        running = null;
      });
  };
  let timer: NodeJS.Timeout = setTimeout(
    () => {
      run();
      timer = setInterval(run, TICK_MS);
      timer.unref();
    },
    FIRST_RUN_AFTER_MS.min + Math.random() * (FIRST_RUN_AFTER_MS.max - FIRST_RUN_AFTER_MS.min),
  );
  // The job never keeps a process alive on its own.
  timer.unref();
  return {
    stop: async () => {
      clearTimeout(timer);
      clearInterval(timer);
      await running;
    },
  };
}
