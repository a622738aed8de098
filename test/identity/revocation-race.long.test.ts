// test-suite: postgres-only (two instances cannot share an in-memory PGlite; the file skips there)
/** 10,000 revocation races (./revocation-race.scenario.ts), the long tier's size; `npm test` runs 1,000. */
import { revocationRaces } from './revocation-race.scenario.ts';

revocationRaces({ sessionRevocations: 8_000, deactivations: 1_000, roleRemovals: 1_000 });
