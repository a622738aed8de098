/** Where generate's typecheck (typecheck.ts) keeps the compiler's state of a project between runs. */
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

/** One file per project folder, in the system's temp folder; `tsc --incremental --tsBuildInfoFile` reads it too. */
export function typecheckStateFile(root: string): string {
  const key = crypto.createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), 'schemaforge-generate-typecheck', `${key}.tsbuildinfo`);
}
