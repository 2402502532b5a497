// Upgrades (README "Upgrading"): `kubectl apply --server-side --prune` with the part-of label
// and an allow-list of kinds. The list must name every kind the chart renders, or a renamed
// object of that kind would be left behind, and never Namespace or CRD, whose deletion would
// take every workspace with it.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { renderInstall } from '../../infra/install/synth.js';
import { DEFAULT_SETTINGS, readInstallSettings } from '../../infra/install/settings.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** `group/version/Kind` as kubectl's --prune-allowlist spells it (`core` for the core group). */
function allowlistEntry(apiVersion: string, kind: string): string {
  return `${apiVersion.includes('/') ? apiVersion : `core/${apiVersion}`}/${kind}`;
}

describe('upgrades by server-side apply with pruning', () => {
  it('the README prune allow-list names every rendered kind except Namespace and CRD, and nothing else', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Upgrading'));
    const listed = [...section.matchAll(/--prune-allowlist=(\S+)/g)].map((m) => m[1]!);
    const production = readInstallSettings({}, { text: await readFile(join(import.meta.dirname, 'configs', 'production.yaml'), 'utf8'), where: 'production.yaml' });
    const rendered = new Set(
      [...renderInstall(DEFAULT_SETTINGS), ...renderInstall(production)].map((o) => allowlistEntry(String(o.apiVersion), String(o.kind))),
    );
    const neverPruned = ['core/v1/Namespace', 'apiextensions.k8s.io/v1/CustomResourceDefinition'];
    for (const kind of neverPruned) {
      expect(rendered.has(kind), `${kind} is rendered`).to.equal(true);
      expect(listed, `${kind} must never be pruned`).to.not.include(kind);
    }
    expect(new Set(listed)).to.deep.equal(new Set([...rendered].filter((k) => !neverPruned.includes(k))));
    expect(section).to.include('--prune -l app.kubernetes.io/part-of=den');
    expect(section).to.include('kubectl apply --server-side --force-conflicts -f dist/');
  });

  it('keeps every Deployment selector the same whatever the configuration, since selectors are immutable', async () => {
    const production = readInstallSettings({}, { text: await readFile(join(import.meta.dirname, 'configs', 'production.yaml'), 'utf8'), where: 'production.yaml' });
    const selectors = (objects: Record<string, any>[]) =>
      Object.fromEntries(objects.filter((o) => o.kind === 'Deployment').map((o) => [o.metadata.name, o.spec.selector]));
    expect(selectors(renderInstall(production))).to.deep.equal(selectors(renderInstall(DEFAULT_SETTINGS)));
    expect(selectors(renderInstall(DEFAULT_SETTINGS))['den-server']).to.deep.equal({ matchLabels: { 'app.kubernetes.io/name': 'den', 'app.kubernetes.io/component': 'server' } });
  });
});
