/**
 * Seeds of the random and property tests, so that a red run is always reproducible.
 *
 * - `npm test`: a fixed seed, the same on every run and machine.
 * - `npm run test:long` (TEST_TIER=long): a new seed each run, and more runs per property.
 * - `TEST_SEED=<n>`: that seed, in any tier; the replay of a counterexample.
 *
 * The seed is printed when the file starts and again with any counterexample, with the command that
 * replays it. The suite's long tier also runs every file that imports this module (selection.ts).
 */
import path from 'node:path';
import fc from 'fast-check';

/** npm test's seed: any fixed number serves; this one is the day the rule was made. */
const FIXED_SEED = 20261128;

const long = process.env.TEST_TIER === 'long';

function chooseSeed(): number {
  const given = process.env.TEST_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`TEST_SEED must be an integer, not ${given}`);
    return seed;
  }
  return long ? Math.floor(Math.random() * 2 ** 31) : FIXED_SEED;
}

/** This process's seed: every random test in the file draws from it. */
export const testSeed = chooseSeed();

/** The test file as the suite names it (the runner passes it; a file run by hand has its argv). */
function testFile(): string {
  return process.env.TEST_FILE ?? path.relative(process.cwd(), process.argv[1] ?? '');
}

/** The command that runs this file again with `seed`, on this database, with the long tier's number of runs when drawn there. */
function replayCommand(seed = testSeed): string {
  const options = [...(long ? ['--tier long'] : []), ...(process.env.TEST_DATABASE_URL ? ['--db postgres'] : [])];
  return `TEST_SEED=${seed} npm run test:suite -- ${[...options, testFile()].join(' ')}`;
}

/** `runs` under npm test; four times as many in the long tier, where the seed is new each time. */
export function runsFor(runs: number): number {
  return long ? runs * 4 : runs;
}

console.log(`# random seed ${testSeed}${long ? ' (new this run)' : ''}; replay: ${replayCommand()}`);

/**
 * fast-check's `assert` with this file's seed and `runs` (scaled by the tier); a counterexample's
 * error names the seed and the replay command.
 */
export async function assertProperty<Ts extends [unknown, ...unknown[]]>(
  property: fc.IAsyncProperty<Ts> | fc.IProperty<Ts>,
  runs: number,
): Promise<void> {
  try {
    await fc.assert(property as fc.IAsyncProperty<Ts>, { seed: testSeed, numRuns: runsFor(runs) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n\nrandom seed ${testSeed}; replay: ${replayCommand()}`, { cause: error });
  }
}
