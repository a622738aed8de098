// test-suite: once (the scenario starts a PostgreSQL server of its own; the suite's database is not used)
/** `npm run faults -- postgres-restart` at the size docs/reliability.md reports (the long tier). */
import { faultScenario } from '../helpers/fault-scenario.ts';

faultScenario('PostgreSQL stopped and started under load, 3 times: 503s in time, ready again, nothing lost', 'postgres-restart', {
  rounds: 3,
});
