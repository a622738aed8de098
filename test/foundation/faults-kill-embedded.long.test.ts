// test-suite: once (the scenario starts server processes and databases of its own; the suite's database is not used)
/**
 * `npm run faults -- kill-embedded` at the size docs/reliability.md reports: twenty kills at random
 * moments, whose value is in their number (the long tier).
 */
import { faultScenario } from '../helpers/fault-scenario.ts';

faultScenario('kill -9 mid-write on the embedded database, 20 times: every acknowledged write survives', 'kill-embedded', { rounds: 20 });
