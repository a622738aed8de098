/**
 * How long each file took in the last runs on this machine, kept under node_modules/.cache (never
 * committed), so that the next run starts the longest files first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { root } from './selection.ts';

const file = path.join(root, 'node_modules/.cache/schemaforge/test-times.json');

/** Milliseconds by `<run> <file>`; empty on a fresh clone. */
export function loadTimings(): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** Adds `measured` to what is kept (a partial run keeps the other files' times). */
export function saveTimings(measured: Record<string, number>): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}`;
  fs.writeFileSync(partial, JSON.stringify({ ...loadTimings(), ...measured }, null, 1));
  fs.renameSync(partial, file);
}
