/** Child process of db-types-cache.ts: writes the generated row types to stdout. */
import { generateDbTypes } from './db-types.ts';

process.stdout.write(await generateDbTypes());
