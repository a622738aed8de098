// test-suite: postgres-only (two instances cannot share an in-memory PGlite; the file skips there)
/** 1,000 revocation races (./revocation-race.scenario.ts); the long tier runs 10,000. */
import { revocationRaces } from './revocation-race.scenario.ts';

revocationRaces({ sessionRevocations: 800, deactivations: 100, roleRemovals: 100 });
