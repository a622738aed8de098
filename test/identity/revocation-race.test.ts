// test-suite: postgres-only (two instances cannot share an in-memory PGlite; the file skips there)
/** 500 revocation races in `npm test` (./revocation-race.scenario.ts), each kind at least 50 times; the long tier runs 10,000. */
import { revocationRaces } from './revocation-race.scenario.ts';

revocationRaces({ sessionRevocations: 400, deactivations: 50, roleRemovals: 50 });
