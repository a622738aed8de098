/**
 * `npm run trusted-documents -- <command>`: the GraphQL documents a server started with
 * GRAPHQL_TRUSTED_DOCUMENTS=true runs, in the configured database (DATABASE_URL, as `npm run migrate`
 * opens it: on PGlite, while the server is stopped, since the server holds its data folder).
 *
 *   add [--client NAME] FILE...   register the documents of persisted-documents.json files
 *                                 (graphql-codegen's client preset); all or nothing per run
 *   list                          the registered documents' ids, clients and dates
 *   remove --client NAME | ID...  remove a client's documents, or documents by id
 *
 * Running servers see a new document within seconds and a removed one within a minute.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config.ts';

const USAGE = `usage: npm run trusted-documents -- add [--client NAME] FILE... | list | remove (--client NAME | ID...)`;

class Usage extends Error {}

/** Where the command writes: each line of its result (`out`) and a failure's lines (`err`), without their newlines. */
interface CommandOutput {
  out: (line: string) => void;
  err: (lines: string) => void;
}

/** The command's work: its lines on `out` as it goes (an `add` of two files says the first before the second fails). */
async function main(args: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { client: { type: 'string' } } });
  const [command, ...rest] = positionals;
  if (command !== 'add' && command !== 'list' && command !== 'remove') throw new Usage(USAGE);
  if (command === 'add' && !rest.length) throw new Usage(`add needs at least one persisted-documents.json; ${USAGE}`);
  if (command === 'remove' && !rest.length && values.client === undefined) throw new Usage(`remove needs --client or ids; ${USAGE}`);

  const manifests = command === 'add' ? rest.map((file) => ({ file, manifest: readManifest(file) })) : [];
  const config = loadConfig(env);
  // Loaded once the arguments, the files and the configuration are known good: a mistake in them is
  // answered at once, without loading the database driver and the schema.
  const [{ openDatabase }, { buildGraphQLSchema }, { RegistrationError, registerDocuments }, { listDocuments, removeDocuments }] =
    await Promise.all([
      import('../src/db/database.ts'),
      import('../src/graphql/schema.ts'),
      import('../src/graphql/trusted/registration.ts'),
      import('../src/graphql/trusted/trusted-documents.repository.ts'),
    ]);
  const handle = await openDatabase(config.database);
  try {
    if (command === 'list') {
      for (const d of await listDocuments(handle.db)) out(`${d.id}\t${d.clientName ?? '-'}\t${d.createdAt.toISOString()}`);
    } else if (command === 'remove') {
      const removed = await removeDocuments(handle.db, {
        ...(rest.length ? { ids: rest } : {}),
        ...(values.client !== undefined ? { clientName: values.client } : {}),
      });
      out(`removed ${removed} document${removed === 1 ? '' : 's'}`);
    } else {
      // The resolvers are not needed to validate documents: the schema's types and directives are.
      const schema = buildGraphQLSchema({});
      for (const { file, manifest } of manifests) {
        try {
          const { added, known } = await registerDocuments(handle.db, schema, manifest, values.client ?? null);
          out(`${file}: ${added} added, ${known} already registered`);
        } catch (error) {
          if (error instanceof RegistrationError) throw new Error(error.problems.map((p) => `${file}: ${p}`).join('\n'));
          throw error;
        }
      }
    }
  } finally {
    await handle.close();
  }
}

function readManifest(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${file}: not JSON: ${(error as Error).message}`);
  }
}

/**
 * Runs the command: its result on `out`; a failure on `err` (a usage mistake as it is, any other
 * error each line after `error: `); returns the exit status, 0 or 1. Exported so that a test runs
 * the command as its process does, without paying for a process of its own each time.
 */
export async function trustedDocuments(args: string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<number> {
  try {
    await main(args, env, output.out);
    return 0;
  } catch (error) {
    const message = error instanceof ConfigError ? `invalid configuration: ${error.message}` : (error as Error).message;
    output.err(
      error instanceof Usage
        ? message
        : message
            .split('\n')
            .map((line) => `error: ${line}`)
            .join('\n'),
    );
    return 1;
  }
}

// Run as `npm run trusted-documents`, not when a test imports the function.
if (process.argv[1]?.endsWith('scripts/trusted-documents.ts')) {
  const status = await trustedDocuments(process.argv.slice(2), process.env, {
    out: (line) => console.log(line),
    err: (lines) => console.error(lines),
  });
  if (status) process.exit(status);
}
