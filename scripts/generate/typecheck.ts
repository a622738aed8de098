/**
 * After `npm run generate`: every file the type checker now rejects, one line each with its first
 * error, so a spec change names all the code it leaves to update (a fixture typed by a changed
 * schema, an event's payload), not only what the implementation check knows how to find
 * (implementation-check.ts). It is the project's own `tsc -p tsconfig.json`, asked through the
 * compiler's API.
 *
 * Incremental: the compiler's state is kept between runs (in the system's temp folder, one file per
 * project folder), so after the first run a small change checks only the files it affects.
 */
import path from 'node:path';
import ts from 'typescript';
import { typecheckStateFile } from './typecheck-state.ts';

/** `file:line:column: message`, the file named from the project root. */
function describe(root: string, diagnostic: ts.Diagnostic): string {
  // The compiler spells out both types in full: their middle goes, the start says what is wrong
  // and the end which properties (`… is missing the following properties from type …: pingCount`).
  const full = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
  const message = full.length > 300 ? `${full.slice(0, 150)} … ${full.slice(-150)}` : full;
  if (!diagnostic.file || diagnostic.start === undefined) return message;
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return `${path.relative(root, diagnostic.file.fileName)}:${line + 1}:${character + 1}: ${message}`;
}

/**
 * The project's type errors, the first of each file with the number of the others: one line a
 * file, in path order. Empty when the project compiles (or has no tsconfig.json).
 */
export function rejectedFiles(root: string): string[] {
  const configPath = path.join(root, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!parsed) return [];
  const options: ts.CompilerOptions = { ...parsed.options, incremental: true, noEmit: true, tsBuildInfoFile: typecheckStateFile(root) };
  const program = ts.createIncrementalProgram({
    rootNames: parsed.fileNames,
    options,
    host: ts.createIncrementalCompilerHost(options),
    ...(parsed.projectReferences ? { projectReferences: parsed.projectReferences } : {}),
  });
  const diagnostics = [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()].filter(
    (d) => d.category === ts.DiagnosticCategory.Error,
  );
  // With noEmit, emit writes the compiler's state only.
  program.emit();
  const byFile = new Map<string, ts.Diagnostic[]>();
  for (const diagnostic of diagnostics) {
    const file = diagnostic.file ? path.relative(root, diagnostic.file.fileName) : '';
    byFile.set(file, [...(byFile.get(file) ?? []), diagnostic]);
  }
  return [...byFile.keys()].sort().map((file) => {
    const [first, ...others] = byFile.get(file)!;
    return `${describe(root, first!)}${others.length ? ` (and ${others.length} more)` : ''}`;
  });
}
