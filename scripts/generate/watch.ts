/**
 * `npm run generate -- --watch`: regenerates whenever a file under schema/, openapi/, the migrations
 * or the SDK's handwritten runtime changes. Changes arriving while a run is under way are gathered
 * into one more run; a failing run prints its error and the watcher goes on.
 */
import fs from 'node:fs';
import path from 'node:path';

const WATCHED = ['schema', 'openapi', 'src/db/migrations', 'scripts/generate/sdk', 'codegen.ts'];

export async function watchSpecs(root: string, run: () => Promise<void>): Promise<void> {
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  const trigger = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await run();
    } catch (error) {
      console.error(error instanceof Error ? error.message : error);
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      void trigger();
    }
  };
  await trigger();
  for (const rel of WATCHED) {
    fs.watch(path.join(root, rel), { recursive: true }, (_event, file) => {
      if (file && /(^|\/)\.|~$/.test(String(file))) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        console.log(`changed: ${path.join(rel, String(file ?? ''))}`);
        void trigger();
      }, 100);
    });
  }
  console.log(`watching ${WATCHED.join(', ')} (Ctrl-C to stop)`);
}
