// What the web UI's Chromium tests (browser.test.ts) use besides the platform: a hostile site,
// the page's Content-Security-Policy violations, the terminal's text and unlabelled controls.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../../support/platform.js';

export const PASSWORD = 'correct horse battery staple';
export const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop';
export const SHOTS = process.env.DEN_SCREENSHOTS === '1' ? join(REPO_ROOT, 'docs/screenshots') : undefined;

/** A page of another site (`localhost` is not the site of `127.0.0.1`) with a form posting `fields` to `action`. */
export async function hostileSite(action: string, fields: Record<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
    .join('');
  const server = http.createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><title>Win a prize</title><form method="post" action="${action}">${inputs}<button>Claim your prize</button></form>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// What the functions given to page.evaluate use of the page (they run in Chromium; the tests' own types have no DOM).
export interface InPage {
  id: string;
  tagName: string;
  type?: string;
  textContent: string | null;
  outerHTML: string;
  labels?: { length: number };
  getAttribute(name: string): string | null;
  getClientRects(): { length: number };
  closest(selector: string): InPage | null;
}
export interface InPageDocument {
  documentElement: { scrollWidth: number };
  activeElement: InPage | null;
  querySelectorAll(selector: string): Iterable<InPage>;
  addEventListener(type: 'securitypolicyviolation', listener: (e: { violatedDirective: string; blockedURI: string; sample: string; sourceFile: string; lineNumber: number }) => void): void;
}
export interface InPageWindow {
  innerWidth: number;
  denCspViolations?: string[];
}
declare const document: InPageDocument;
declare const window: InPageWindow;

/** Runs in every document before its own scripts: each CSP violation it reports, as a line. */
export function recordCspViolations(): void {
  window.denCspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.denCspViolations!.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber}) ${e.sample}`);
  });
}

/**
 * Watches `page` for what a strict CSP breaks: violations the document reports, and the console
 * errors Chromium logs for each refused inline style or script. `take()` returns what
 * the current document reported since the last call.
 */
export async function watchCsp(page: Page): Promise<{ take(): Promise<string[]> }> {
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && m.text().includes('Content Security Policy')) consoleErrors.push(`console: ${m.text()}`);
  });
  await page.addInitScript(recordCspViolations);
  return {
    async take() {
      const reported = await page.evaluate(() => window.denCspViolations?.splice(0) ?? []);
      return [...reported, ...consoleErrors.splice(0)];
    },
  };
}

/** What xterm.js shows, row by row, without the padding of each row. */
export async function terminalText(page: Page): Promise<string> {
  const rows = await page.$eval('#terminal .xterm-rows', (el) => [...el.children].map((r) => r.textContent ?? ''));
  return rows.map((r) => r.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
}

/** Form controls (visible ones) without an accessible name from a label, aria-label or aria-labelledby. */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((c) => c.type !== 'hidden' && c.getClientRects().length > 0)
      .filter((c) => (c.labels?.length ?? 0) === 0 && !c.getAttribute('aria-label') && !c.getAttribute('aria-labelledby'))
      .map((c) => c.outerHTML),
  );
}
