/**
 * `schemaforge-check-operations`, shipped in the SDK (packages/sdk/lib/check-operations.js, bundled
 * from here with the server's limit code by `npm run generate`): refuses, before any request, the
 * operations the server would refuse for their cost, depth, aliases or length, with the server's own
 * messages. Exit 1 with one line per refused operation; exit 0 with a one-line summary.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { buildSchema } from 'graphql';
import { DEFAULT_MAX_COMPLEXITY, DEFAULT_MAX_DEPTH } from '../../src/graphql/limit-defaults.ts';
import { graphqlLimits } from '../../src/graphql/limits.ts';
import { checkOperations, type OperationReport } from './check.ts';
import { documentTexts, expandPatterns } from './sources.ts';

const USAGE = `Usage: schemaforge-check-operations [options] <file or glob>...
Checks GraphQL operations (.graphql files, graphql(\`…\`) / gql\`…\` in scripts) against the server's limits.
  --costs               with none over a limit, list each operation's cost
  --max-complexity N    the server's GRAPHQL_MAX_COMPLEXITY (default ${DEFAULT_MAX_COMPLEXITY})
  --max-depth N         the server's GRAPHQL_MAX_DEPTH (default ${DEFAULT_MAX_DEPTH})
  --schema FILE         the schema SDL (default: the one this SDK ships)
Quote globs ('src/**/*.tsx'); a '!glob' excludes. Variables that set a size count at their default.`;

function positive(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer, not ${value}`);
  return n;
}

function assumed(report: OperationReport): string {
  return report.notes.length ? `; assuming ${report.notes.join(', ')}` : '';
}

function main(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      costs: { type: 'boolean' },
      'max-complexity': { type: 'string' },
      'max-depth': { type: 'string' },
      schema: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || !positionals.length) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const limits = graphqlLimits({
    graphqlMaxComplexity: positive(values['max-complexity'], DEFAULT_MAX_COMPLEXITY, '--max-complexity'),
    graphqlMaxDepth: positive(values['max-depth'], DEFAULT_MAX_DEPTH, '--max-depth'),
  });
  const schemaFile = values.schema ?? new URL('./schema.graphql', import.meta.url);
  const schema = buildSchema(fs.readFileSync(schemaFile, 'utf8'));
  const files = expandPatterns(positionals, process.cwd());
  const texts = files.flatMap((file) => documentTexts(file, fs.readFileSync(file, 'utf8')));
  const reports = checkOperations(schema, texts, limits);
  const refused = reports.filter((r) => r.errors.length);
  for (const r of refused) {
    for (const e of r.errors) {
      // The cost is in the server's message when the cost is what is over; else it is added.
      const over = r.cost !== null && r.cost > limits.maxComplexity ? `, over the limit of ${limits.maxComplexity} too` : '';
      const cost = e.code === 'QUERY_TOO_COMPLEX' || r.cost === null ? '' : `, cost ${r.cost}${over}`;
      console.log(`${r.where}: ${r.name ? `operation ${r.name}` : 'anonymous operation'}: ${e.message} (${e.code})${cost}${assumed(r)}`);
    }
  }
  if (refused.length) return 1;
  const within = `${reports.length} operation${reports.length === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'} within the limits (cost ${limits.maxComplexity}, depth ${limits.maxDepth}, aliases ${limits.maxAliases})`;
  const costs = reports.map((r) => `${r.name || 'anonymous'} ${r.cost}${r.notes.length ? ` (${r.notes.join(', ')})` : ''}`);
  console.log(values.costs && reports.length ? `${within}: ${costs.join('; ')}` : within);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(`schemaforge-check-operations: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
