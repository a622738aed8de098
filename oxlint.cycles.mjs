/**
 * `npm run cycles`: the lint's import-cycle rule alone (type imports included), read from
 * oxlint.config.mjs so that the rule is said once; a second or so instead of the whole lint.
 */
import lint from './oxlint.config.mjs';

export default {
  plugins: ['import', 'typescript'],
  categories: { correctness: 'off' },
  rules: { 'import/no-cycle': lint.rules['import/no-cycle'] },
};
