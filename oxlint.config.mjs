// @ts-check
/**
 * The linter: oxlint, with its type-aware rules (oxlint-tsgolint, TypeScript 7's checker) over src/,
 * scripts/, test/ and the root files. The rules are ESLint's `recommended` and typescript-eslint's
 * `recommendedTypeChecked` sets, named one by one so that an oxlint release that grows its defaults
 * changes nothing here; each rule switched off or narrowed below says why on its own line. Import
 * cycles (type imports included) are errors. Formatting is oxfmt's (`npm run format`): no stylistic rule is on.
 * Decision 187 says why oxlint replaced ESLint.
 */
import fs from 'node:fs';
import path from 'node:path';

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
  'typescript/no-explicit-any': 'off',
  'typescript/no-unsafe-argument': 'off',
  'typescript/no-unsafe-assignment': 'off',
  'typescript/no-unsafe-call': 'off',
  'typescript/no-unsafe-member-access': 'off',
  'typescript/no-unsafe-return': 'off',
};

/** @type {import('oxlint').OxlintConfig} */
export default {
  plugins: ['eslint', 'typescript', 'import'],
  categories: { correctness: 'off' },
  env: { builtin: true, es2024: true, node: true },
  ignorePatterns: ['node_modules/', 'generated/', 'packages/sdk/lib/', 'dist/', '.data/', '.tap/', 'coverage/', '.test-build/'],
  options: { typeAware: true, typeCheck: false, reportUnusedDisableDirectives: 'error', denyWarnings: true },
  rules: {
    // ESLint's recommended rules that apply to TypeScript as well as JavaScript.
    'for-direction': 'error',
    'no-async-promise-executor': 'error',
    'no-case-declarations': 'error',
    'no-compare-neg-zero': 'error',
    'no-cond-assign': ['error', 'except-parens'],
    'no-constant-binary-expression': 'error',
    'no-constant-condition': ['error', { checkLoops: 'allExceptWhileTrue' }],
    'no-control-regex': 'error',
    'no-debugger': 'error',
    'no-delete-var': 'error',
    'no-dupe-else-if': 'error',
    'no-duplicate-case': 'error',
    'no-empty': ['error', { allowEmptyCatch: false }],
    'no-empty-character-class': 'error',
    'no-empty-pattern': 'error',
    'no-empty-static-block': 'error',
    'no-ex-assign': 'error',
    'no-extra-boolean-cast': 'error',
    'no-fallthrough': 'error',
    'no-global-assign': 'error',
    'no-invalid-regexp': 'error',
    'no-irregular-whitespace': 'error',
    'no-loss-of-precision': 'error',
    'no-misleading-character-class': 'error',
    'no-nonoctal-decimal-escape': 'error',
    'no-prototype-builtins': 'error',
    'no-regex-spaces': 'error',
    'no-self-assign': ['error', { props: true }],
    'no-shadow-restricted-names': ['error', { reportGlobalThis: false }],
    'no-sparse-arrays': 'error',
    'no-unsafe-finally': 'error',
    'no-unsafe-optional-chaining': 'error',
    'no-unused-labels': 'error',
    'no-unused-private-class-members': 'error',
    'no-useless-backreference': 'error',
    'no-useless-catch': 'error',
    'no-useless-escape': 'error',
    'require-yield': 'error',
    'use-isnan': 'error',
    'valid-typeof': 'error',
    'no-unused-vars': ['error', unused],
    'no-unused-expressions': 'error',
    // A cycle, type imports included, makes the order in which modules load matter.
    'import/no-cycle': ['error', { ignoreTypes: false }],
  },
  overrides: [
    {
      files: ['**/*.ts'],
      rules: {
        'no-var': 'error',
        'prefer-const': 'error',
        'prefer-rest-params': 'error',
        'prefer-spread': 'error',
        'no-array-constructor': 'error',
        'typescript/await-thenable': 'error',
        'typescript/ban-ts-comment': 'error',
        'typescript/no-array-delete': 'error',
        'typescript/no-base-to-string': 'error',
        'typescript/no-duplicate-enum-values': 'error',
        'typescript/no-duplicate-type-constituents': 'error',
        'typescript/no-empty-object-type': 'error',
        'typescript/no-explicit-any': 'error',
        'typescript/no-extra-non-null-assertion': 'error',
        'typescript/no-floating-promises': 'error',
        'typescript/no-for-in-array': 'error',
        'typescript/no-implied-eval': 'error',
        'typescript/no-misused-new': 'error',
        'typescript/no-misused-promises': 'error',
        'typescript/no-namespace': 'error',
        'typescript/no-non-null-asserted-optional-chain': 'error',
        'typescript/no-redundant-type-constituents': 'error',
        'typescript/no-require-imports': 'error',
        'typescript/no-this-alias': 'error',
        'typescript/no-unnecessary-type-assertion': 'error',
        'typescript/no-unnecessary-type-constraint': 'error',
        'typescript/no-unsafe-argument': 'error',
        'typescript/no-unsafe-assignment': 'error',
        'typescript/no-unsafe-call': 'error',
        'typescript/no-unsafe-declaration-merging': 'error',
        'typescript/no-unsafe-enum-comparison': 'error',
        'typescript/no-unsafe-function-type': 'error',
        'typescript/no-unsafe-member-access': 'error',
        'typescript/no-unsafe-return': 'error',
        'typescript/no-unsafe-unary-minus': 'error',
        'typescript/no-wrapper-object-types': 'error',
        'typescript/only-throw-error': 'error',
        'typescript/prefer-as-const': 'error',
        'typescript/prefer-namespace-keyword': 'error',
        'typescript/prefer-promise-reject-errors': 'error',
        'typescript/restrict-plus-operands': 'error',
        'typescript/restrict-template-expressions': 'error',
        'typescript/triple-slash-reference': 'error',
        'typescript/unbound-method': 'error',
      },
    },
    {
      // What the type checker catches in TypeScript, caught here in the few JavaScript files.
      files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
      rules: {
        'constructor-super': 'error',
        'getter-return': 'error',
        'no-class-assign': 'error',
        'no-const-assign': 'error',
        'no-dupe-class-members': 'error',
        'no-dupe-keys': 'error',
        'no-func-assign': 'error',
        'no-import-assign': 'error',
        'no-new-native-nonconstructor': 'error',
        'no-obj-calls': 'error',
        'no-redeclare': ['error', { builtinGlobals: true }],
        'no-setter-return': 'error',
        'no-this-before-super': 'error',
        'no-undef': 'error',
        'no-unreachable': 'error',
        'no-unsafe-negation': 'error',
        'no-with': 'error',
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
                message:
                  'src/{auth,db,graphql,http} are shared plumbing: they import no area (hand area code in from the composition root).',
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
        'scripts/generate/event-catalog.ts',
        'scripts/generate/problem-types.ts',
        'scripts/generate/transport-responses.ts',
        'scripts/generate/xml-names.ts',
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
        'typescript/unbound-method': 'off',
        // tap callbacks receive `t` whether or not they use it.
        'no-unused-vars': ['error', { ...unused, args: 'none' }],
        // tap awaits the subtests it is given (`t.test` returns a PromiseWithSubtest tap tracks itself).
        'typescript/no-floating-promises': [
          'error',
          { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
        ],
      },
    },
  ],
};
