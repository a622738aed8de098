// @ts-check
/**
 * ESLint with typescript-eslint's type-aware `recommendedTypeChecked` set over src/, scripts/ and test/.
 * Each rule switched off or narrowed below says why on its own line. Formatting is Prettier's
 * (eslint-config-prettier, last, turns off the stylistic rules that would clash with it).
 */
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * Plumbing every area shares (docs/architecture.md, "The dependency rule"). Every other folder of
 * src/ is an area, read from the tree so that a new area is guarded without editing this file; the
 * composition roots (services.ts, app.ts, server.ts, main.ts, worker.ts) wire areas together.
 */
const PLUMBING = ['auth', 'db', 'graphql', 'http'];
const AREAS = fs
  .readdirSync(path.join(import.meta.dirname, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !PLUMBING.includes(entry.name))
  .map((entry) => entry.name);
const COMPOSITION_ROOTS = ['services', 'app', 'server', 'main', 'worker'];

const unused = { varsIgnorePattern: '^_', argsIgnorePattern: '^_', ignoreRestSiblings: true };
const untypedJson = {
  '@typescript-eslint/no-explicit-any': 'off',
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
};

export default defineConfig(
  { ignores: ['generated/', 'packages/sdk/lib/', 'dist/', '.data/', '.tap/', 'coverage/', '.test-build/'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Fastify handlers and Promise-returning interfaces are async so that a throw becomes a rejection.
      '@typescript-eslint/require-await': 'off',
      // `_`-prefixed names and rest siblings are how the code drops fields from a row on purpose.
      '@typescript-eslint/no-unused-vars': ['error', unused],
    },
  },
  {
    // Plumbing must know no area: it imports only plumbing, the root helpers (errors, config, paging,
    // json-schema) and generated/. An area hands plumbing what it needs (the content graph is given
    // to the GraphQL plugin by src/app.ts), so no import points from plumbing back to an area.
    files: PLUMBING.map((folder) => `src/${folder}/**/*.ts`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`(^|/)(${AREAS.join('|')})/|(^|/)(${COMPOSITION_ROOTS.join('|')})\.ts$`,
              message: 'src/{auth,db,graphql,http} are shared plumbing: they import no area (hand area code in from the composition root).',
            },
          ],
        },
      ],
    },
  },
  {
    // These walk parsed OpenAPI documents by key; their shape is checked by `redocly lint`, not by types.
    files: [
      'src/http/openapi-docs.ts',
      'src/http/openapi-routes.ts',
      'src/http/response-schemas.ts',
      'scripts/generate/openapi.ts',
      'scripts/generate/transport-responses.ts',
      'scripts/fuzz/*.ts',
      'scripts/mock/*.ts',
    ],
    rules: untypedJson,
  },
  {
    files: ['test/**/*.ts', 'scripts/bench/**/*.ts'],
    rules: {
      // Tests and benchmarks read response bodies as untyped JSON; the assertions check them at run time.
      ...untypedJson,
      // Tests keep and restore methods they stub, and destructure the helpers' methods.
      '@typescript-eslint/unbound-method': 'off',
      // tap callbacks receive `t` whether or not they use it.
      '@typescript-eslint/no-unused-vars': ['error', { ...unused, args: 'none' }],
      // tap awaits the subtests it is given (`t.test` returns a PromiseWithSubtest tap tracks itself).
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly' } },
  },
  prettier,
);
