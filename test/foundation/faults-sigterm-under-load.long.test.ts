// test-suite: once (the scenario starts server processes and databases of its own; the suite's database is not used)
/** `npm run faults -- sigterm-under-load` at the size docs/reliability.md reports (the long tier). */
import { faultScenario } from '../helpers/fault-scenario.ts';

faultScenario('SIGTERM under load, 5 times: whole answers or clean refusals, exit 0, nothing lost', 'sigterm-under-load', { rounds: 5 });
