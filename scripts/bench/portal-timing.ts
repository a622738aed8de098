/**
 * `npm run bench -- portal [--rounds N]`: what the portal page costs a person opening it on loopback.
 * The sizes of its script and style sheet (raw and gzip, as served), and in Debian's Chromium, each
 * round in a new browser context (an empty cache, as a first visit): the first contentful paint and
 * the time until the portal has answered (its no-session message, which needs the script, the style
 * sheet and one API call). The server is the compiled one (`npm start`'s dist/) in its own process;
 * the page is built on its first request, which a warm-up round pays.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { freePort } from '../lib/free-port.ts';
import { ROOT } from './procs.ts';

const CHROMIUM = '/usr/bin/chromium';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function benchPortal(rounds: number): Promise<string> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-'));
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: base,
      DATA_DIR: dataDir,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      WEBHOOK_WORKER: 'off',
    },
    stdio: 'ignore',
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    for (let waited = 0; ; waited += 200) {
      if ((await fetch(`${base}/readyz`).catch(() => undefined))?.ok) break;
      if (waited > 30_000) throw new Error('the server did not become ready');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const html = await (await fetch(`${base}/portal`)).text();
    const sizes = [];
    for (const [, name] of html.matchAll(/\/portal\/assets\/(portal-[0-9a-f]+\.(?:js|css))/g)) {
      const body = Buffer.from(await (await fetch(`${base}/portal/assets/${name}`)).arrayBuffer());
      sizes.push(
        `${name!.endsWith('.js') ? 'script' : 'style sheet'} ${(body.length / 1024).toFixed(1)} kB, ${(gzipSync(body, { level: 9 }).length / 1024).toFixed(1)} kB gzip`,
      );
    }
    const paints: number[] = [];
    const ready: number[] = [];
    for (let round = -1; round < rounds; round++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${base}/portal`);
      await page.getByText('There is no open portal session').waitFor();
      const [paint, answered] = await page.evaluate<[number, number]>(
        `[performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN, performance.now()]`,
      );
      await context.close();
      if (round < 0) continue; // the warm-up builds the bundle
      paints.push(paint);
      ready.push(answered);
    }
    const ms = (values: number[]) => `median ${percentile(values, 50).toFixed(0)} ms, p90 ${percentile(values, 90).toFixed(0)} ms`;
    return [
      `portal on loopback, ${rounds} first visits (a new browser context each), Chromium headless:`,
      `  ${sizes.join('; ')}`,
      `  first contentful paint: ${ms(paints)}`,
      `  portal answered (its no-session message): ${ms(ready)}`,
    ].join('\n');
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
