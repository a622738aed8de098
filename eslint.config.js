// @ts-check
/**
 * ESLint with typescript-eslint's type-aware `recommendedTypeChecked` set over src/, scripts/ and test/.
 * Each rule switched off or narrowed below says why on its own line. Formatting is Prettier's
 * (eslint-config-prettier, last, turns off the stylistic rules that would clash with it).
 */
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

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
  { ignores: ['generated/', 'dist/', '.data/', '.tap/', 'coverage/', '.test-build/'] },
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
    // src/http is the plumbing every area shares; it must know none of them (docs/architecture.md), so
    // it may import only itself, auth, errors, config, the database handle types and generated/.
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^\.\./(?!(auth|db)/|(errors|config)\.ts$|\.\./generated/)`,
              message: 'src/http is shared plumbing: it imports no area (register area code from the area plugin instead).',
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
