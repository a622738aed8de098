/**
 * What the portal's browser tests share: Debian's Chromium through playwright-core, an axe-core scan
 * of the screen in view, screenshots of it at 1280 and 390 pixels wide (to the system's temp folder,
 * or docs/portal/ with PORTAL_SCREENSHOTS=docs, which is how docs/portal.md's pictures are made), and
 * a check that the narrow screen needs no sideways scrolling.
 */
import axe from 'axe-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import tap, { type Test } from 'tap';

const CHROMIUM = '/usr/bin/chromium';
export const noBrowser = fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}`;

const FOR_DOCS = process.env.PORTAL_SCREENSHOTS === 'docs';
const SHOTS = FOR_DOCS ? path.resolve(import.meta.dirname, '../../docs/portal') : path.join(os.tmpdir(), 'portal-screens');
/**
 * The documentation keeps JPEGs (a third of a PNG's size) at 1280 pixels, and at 390 only for the
 * screens docs/portal.md shows narrow; while working, every screen is a PNG at both widths.
 */
const NARROW_IN_DOCS = new Set(['webhook-endpoint-attempts', 'sso-tested', 'domains-pending']);
const shot = (name: string, width: number) =>
  FOR_DOCS
    ? width === 1280 || NARROW_IN_DOCS.has(name)
      ? { path: path.join(SHOTS, `${name}-${width}.jpg`), type: 'jpeg' as const, quality: 70 }
      : undefined
    : { path: path.join(SHOTS, `${name}-${width}.png`) };

let launched: Promise<Browser> | undefined;

/**
 * The file's one Chromium (each test opens a context of its own, an empty profile), launched on the
 * first call and closed when the file ends: a launch costs a CPU-second or two.
 */
export function sharedBrowser(): Promise<Browser> {
  if (!launched) {
    launched = chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const browser = launched;
    tap.teardown(async () => (await browser).close());
  }
  return launched;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. The script is evaluated
 * through the DevTools protocol, which the page's CSP does not govern (it refuses any script tag).
 */
async function axeProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axe.source);
  const violations = await page.evaluate<AxeViolation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Checks the screen in view the way every screen is checked: axe finds nothing serious, and at 390
 * pixels nothing is wider than the screen; then screenshots it at both widths, full page.
 */
export async function checkScreen(t: Test, page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  t.same(await axeProblems(page), [], `${name}: axe-core finds no serious or critical violation`);
  const wide = page.viewportSize() ?? { width: 1280, height: 800 };
  const wideShot = shot(name, 1280);
  if (wideShot) await page.screenshot({ ...wideShot, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  t.equal(overflow, 0, `${name}: at 390 pixels nothing is wider than the screen`);
  const narrowShot = shot(name, 390);
  if (narrowShot) await page.screenshot({ ...narrowShot, fullPage: true });
  await page.setViewportSize(wide);
}
