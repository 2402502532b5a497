// Schedules and dormancy on the pages, in Chromium: the new-workspace form takes a schedule in
// words, the workspace page shows it and changes it with its own form (a refusal beside its
// field, what was typed kept), and a workspace close to being stopped for dormancy says so on
// its page and on the dashboard.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { generateSshKey } from '../../support/ssh-keys.js';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';

const DAY = 86_400_000;

function unusedWorkspace(name: string, days: number): KubeObject {
  const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name, namespace: 'svc-alice', creationTimestamp: at(Date.now() - 60 * DAY) },
    spec: { imageRef: { name: 'ubuntu' }, storage: '1Gi', running: true },
    status: { phase: 'Running', lastActivityTime: at(Date.now() - days * DAY), dormancy: { stopAfterDays: 14, deleteAfterDays: 7, home: 'Keep' } },
  };
}

describe('schedules and dormancy on the pages, in Chromium', function () {
  this.timeout(90_000);
  let world: BrowserDen;
  let alice: Page;
  const stored = (name: string) => world.api.object<{ spec: { schedule?: unknown } }>(RESOURCES.workspace, name, 'svc-alice');

  before(async () => {
    world = await startBrowserDen({ alice: {} }, (api) => {
      api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { displayName: 'Ubuntu', image: 'ubuntu:24.04' } }, unusedWorkspace('old', 12));
    });
    alice = await world.signedIn('alice', '/new');
  });
  after(() => world?.close());

  it('creates a workspace with a schedule from the new-workspace form and shows it on its page', async () => {
    await alice.goto(`${world.den.url}/new`);
    await alice.fill('#name', 'day');
    await alice.selectOption('#image', 'ubuntu');
    await alice.fill('#ssh_public_key', generateSshKey('ed25519').publicLine);
    await alice.fill('#autostart', 'weekdays 08:30');
    await alice.fill('#autostop', '19:00');
    await alice.fill('#max_running', '8h');
    // The field starts with the browser's own zone.
    expect(await alice.inputValue('#time_zone')).to.equal(await alice.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone));
    await alice.fill('#time_zone', 'Europe/Berlin');
    await alice.click('form[action="/new"] button[type="submit"]');
    await alice.waitForURL((u) => u.pathname === '/w/day');
    expect(stored('day')?.spec.schedule).to.deep.equal({ timeZone: 'Europe/Berlin', autostart: { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], time: '08:30' }, autostop: { time: '19:00' }, maxRunning: '8h' });
    expect(await alice.locator('#schedule-fact').innerText()).to.equal('starts weekdays 08:30 Europe/Berlin; stops daily 19:00 Europe/Berlin; stops after running 8h');
  });

  it('refuses a time it cannot read beside its field, keeping what was typed, then saves and removes parts', async () => {
    await world.api.client().patch(RESOURCES.userSpace, 'alice', { spec: { schedules: { maxRunningLimit: '10h', defaultAutostop: { time: '20:00', timeZone: 'Europe/Berlin' } } } }, { type: 'merge' });
    await alice.goto(`${world.den.url}/w/day`);
    await alice.click('#schedule summary');
    expect(await alice.locator('#schedule-policy').innerText()).to.equal('Set by an administrator for your space: a workspace runs at most 10h at a time; one without a stop time stops daily 20:00 Europe/Berlin.');
    expect(await alice.inputValue('#schedule #autostart')).to.equal('weekdays 08:30');
    await alice.fill('#schedule #autostart', 'weekdays 8am');
    await alice.click('#schedule button[type="submit"]');
    expect(await alice.locator('#schedule #autostart-error').innerText()).to.equal('autostart: "weekdays 8am" does not end with a time of day as HH:MM (24 hours), such as "weekdays 08:30", "daily 19:00", "Mon,Wed,Fri 07:45" or "18:00"');
    expect(await alice.inputValue('#schedule #autostart')).to.equal('weekdays 8am');
    expect(await alice.getAttribute('#schedule #autostart', 'aria-invalid')).to.equal('true');

    await alice.fill('#schedule #autostart', 'Mon,Wed 07:45');
    await alice.fill('#schedule #max_running', '');
    await alice.click('#schedule button[type="submit"]');
    await alice.waitForURL((u) => u.pathname === '/w/day');
    expect(await alice.locator('#notice').innerText()).to.equal('Schedule saved: starts Mon,Wed 07:45 Europe/Berlin; stops daily 19:00 Europe/Berlin.');
    expect(stored('day')?.spec.schedule).to.deep.equal({ timeZone: 'Europe/Berlin', autostart: { days: ['Mon', 'Wed'], time: '07:45' }, autostop: { time: '19:00' } });
  });

  it('tells the person beforehand when an unused workspace will be stopped, on its page and the dashboard', async () => {
    const stopOn = new Date(Date.now() + 2 * DAY).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
    const said = `Unused for 12 days; will be stopped on ${stopOn} (UTC) unless used (open an SSH session or the browser terminal).`;
    await alice.goto(`${world.den.url}/w/old`);
    expect(await alice.locator('#dormancy').innerText()).to.equal(said);
    await alice.goto(`${world.den.url}/`);
    expect(await alice.locator('article[data-workspace="old"] .dormancy').innerText()).to.equal(said);
    expect(await alice.locator('article[data-workspace="day"] .dormancy').count()).to.equal(0);
  });
});
