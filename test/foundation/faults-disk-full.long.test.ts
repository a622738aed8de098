// test-suite: once (the scenario starts a server on an embedded database of its own; the suite's database is not used)
/** `npm run faults -- disk-full`: the embedded database on a full disk (the long tier). */
import { faultScenario } from '../helpers/fault-scenario.ts';

faultScenario('the embedded database on a full disk: a 507 Problem, stored files intact, the folder opens again', 'disk-full', {
  skip: process.getuid?.() === 0 ? false : 'mounts a tmpfs: root only',
});
