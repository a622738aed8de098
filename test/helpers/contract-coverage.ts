/**
 * Contract coverage: which documented operations and statuses the suite exercised, with the response
 * validated against its OpenAPI document (contract.ts records each one that passes). With
 * CONTRACT_COVERAGE_DIR set (scripts/test-suite.ts sets it), each test process writes what it
 * exercised there when it exits, and `reportCoverage` adds the files up per document.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SERVED_METHODS } from '../../src/http/openapi-methods.ts';

const exercised = new Set<string>();
const dir = process.env.CONTRACT_COVERAGE_DIR;

if (dir) {
  process.on('exit', () => {
    if (exercised.size) fs.writeFileSync(path.join(dir, `${process.pid}-${Date.now()}.txt`), [...exercised].join('\n'));
  });
}

/** Records `<document> <operationId> <status key>` (status key as documented: `200`, `4XX`). */
export function recordExercised(document: string, operationId: string, status: string): void {
  if (dir) exercised.add(`${document} ${operationId} ${status}`);
}

type Json = Record<string, any>;

export interface DocumentCoverage {
  document: string;
  operations: number;
  operationsExercised: number;
  statuses: number;
  statusesExercised: number;
  missingOperations: string[];
}

/** Adds up the files in `from` against the generated documents in `generatedDir`. */
export function reportCoverage(from: string, generatedDir: string): DocumentCoverage[] {
  const seen = new Set(
    fs
      .readdirSync(from)
      .flatMap((f) => fs.readFileSync(path.join(from, f), 'utf8').split('\n'))
      .filter(Boolean),
  );
  const seenOperations = new Set([...seen].map((line) => line.split(' ').slice(0, 2).join(' ')));
  return fs
    .readdirSync(generatedDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const document = f.replace(/\.json$/, '');
      const doc = JSON.parse(fs.readFileSync(path.join(generatedDir, f), 'utf8')) as Json;
      const result: DocumentCoverage = {
        document,
        operations: 0,
        operationsExercised: 0,
        statuses: 0,
        statusesExercised: 0,
        missingOperations: [],
      };
      for (const item of Object.values<Json>(doc.paths ?? {})) {
        for (const method of SERVED_METHODS) {
          const operationId = item[method]?.operationId as string | undefined;
          if (!operationId) continue;
          result.operations++;
          if (seenOperations.has(`${document} ${operationId}`)) result.operationsExercised++;
          else result.missingOperations.push(operationId);
          for (const status of Object.keys(item[method].responses ?? {})) {
            result.statuses++;
            if (seen.has(`${document} ${operationId} ${status}`)) result.statusesExercised++;
          }
        }
      }
      return result;
    });
}
