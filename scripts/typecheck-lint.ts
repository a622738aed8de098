/**
 * `npm test`'s typecheck and lint on one TypeScript program: `tsc -p tsconfig.json` and
 * `eslint --max-warnings=0 .` each build the whole program (ESLint's type-aware rules need it), and
 * building it is most of what either costs; here it is built once, its diagnostics printed as tsc
 * prints them, and handed to ESLint (typescript-eslint's `parserOptions.programs`). Exits 1 on any
 * type error, lint error or lint warning. `npm run typecheck` and `npm run lint` stay as they are
 * for one of the two alone (and for editors).
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');

const host: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (file) => file,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};

const configErrors: ts.Diagnostic[] = [];
const parsed = ts.getParsedCommandLineOfConfigFile(
  path.join(root, 'tsconfig.json'),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => configErrors.push(d) },
);
if (!parsed || configErrors.length) {
  process.stdout.write(ts.formatDiagnostics(configErrors, host));
  process.exit(1);
}
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences });
const typeErrors = [...parsed.errors, ...ts.getPreEmitDiagnostics(program)];
if (typeErrors.length) process.stdout.write(ts.formatDiagnostics(typeErrors, host));

const eslint = new ESLint({
  cwd: root,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, programs: [program] } } }],
});
const results = await eslint.lintFiles(['.']);
const problems = results.reduce((n, r) => n + r.errorCount + r.warningCount, 0);
if (problems) process.stdout.write(await (await eslint.loadFormatter('stylish')).format(results));

console.log(`typecheck: ${typeErrors.length} errors; lint: ${problems} problems in ${results.length} files`);
process.exit(typeErrors.length || problems ? 1 : 0);
