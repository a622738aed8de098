/**
 * The type checker every check of this project runs: TypeScript 7's `tsc` (the compiler ported to
 * Go), installed as the `typescript-native` package. The `typescript` package (5.9) stays for its
 * JavaScript API, which openapi-typescript and the SDK build call; TypeScript 7 has no stable one yet
 * (decision 187). `npm run typecheck` runs the same file.
 */
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** The `tsc` script of TypeScript 7, run with `node` (it starts the platform's compiler binary). */
export const TSC = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript-native/package.json')), 'bin/tsc');

/**
 * Where generate's typecheck keeps the compiler's state of a project between runs
 * (`--incremental --tsBuildInfoFile`): one file per project folder, in the system's temp folder.
 */
export function typecheckStateFile(root: string): string {
  const key = crypto.createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), 'schemaforge-generate-typecheck', `${key}.tsbuildinfo`);
}
