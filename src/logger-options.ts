/**
 * The pino options of the server's and the worker's loggers, from LOG_LEVEL and LOG_FORMAT. JSON
 * lines by default; `pretty` sends them through pino-pretty in a transport (a worker thread pino
 * starts), so the package is only ever loaded by a process that chose it.
 */
import { createRequire } from 'node:module';
import type { LoggerOptions } from 'pino';
import type { Config } from './config.ts';

const require = createRequire(import.meta.url);

export function loggerOptions(config: Pick<Config, 'logLevel' | 'logFormat'>): LoggerOptions {
  // At level silent nothing is written: no thread for a formatter that would never run.
  if (config.logFormat === 'json' || config.logLevel === 'silent') return { level: config.logLevel };
  return {
    level: config.logLevel,
    transport: {
      // Resolved here, from this package, rather than by pino from whichever module built the logger.
      target: require.resolve('pino-pretty'),
      options: {
        translateTime: 'SYS:HH:MM:ss.l',
        // A terminal shows one process on one machine; an access line reads as one line
        // ("GET /docs 200 · request completed"), the request and response objects left out.
        ignore: 'pid,hostname,req,res',
        messageFormat: '{if req.method}{req.method} {req.url} {res.statusCode} · {end}{msg}',
        singleLine: true,
      },
    },
  };
}
