// A Den for tests in real Chromium: the REST core's cluster (test/server/core/cluster.ts) with
// `den server`'s app listening on the port its base URL names (so the terminal's Origin check
// sees the page's own origin), and people signed in through the sign-in page.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FakeApiServer } from './fake-apiserver.js';
import { freePort } from './loopback.js';
import { launchChromium } from './web.js';
import { addPerson, startCluster, startDen, type Den, type DenOptions } from '../server/core/cluster.js';

export interface BrowserDen {
  api: FakeApiServer;
  den: Den;
  browser: Browser;
  /** A fresh browser profile signed in as `username` (password `<username>-password`), on `path`. */
  signedIn(username: string, path?: string): Promise<Page>;
  close(): Promise<void>;
}

export async function startBrowserDen(
  people: Record<string, { admin?: boolean; password?: string }>,
  before?: (api: FakeApiServer) => void | Promise<void>,
  opts: DenOptions = {},
): Promise<BrowserDen> {
  const api = await startCluster();
  for (const [name, o] of Object.entries(people)) await addPerson(api, name, o);
  await before?.(api);
  const port = await freePort();
  const den = await startDen(api, { ...opts, port, baseUrl: `http://127.0.0.1:${port}` });
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  return {
    api,
    den,
    browser,
    async signedIn(username, path = '/') {
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      await page.goto(`${den.url}/login?next=${encodeURIComponent(path)}`);
      await page.fill('#username', username);
      await page.fill('#password', people[username]?.password ?? `${username}-password`);
      await Promise.all([page.waitForURL((u) => u.pathname !== '/login'), page.click('button[type="submit"]')]);
      return page;
    },
    async close() {
      for (const c of contexts) await c.close();
      await browser.close();
      await den.close();
      await api.close();
    },
  };
}
