// The Dockerfile and the chart must agree: the user the image runs as is the one the
// Deployments ask for, the entry point is the compiled `den`, and the build context keeps
// everything `npm ci` and `npm run build` read. No Docker daemon runs here, so these are read
// from the files; docs/infra.md says how the image was checked by hand.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ROLES } from '../../cli/roles.js';
import { renderInstall } from '../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { IMAGE_ENTRYPOINT } from '../../infra/install/workload.js';

const ROOT = resolve(import.meta.dirname, '../..');

type Obj = Record<string, any>;

/** The Dockerfile's instructions per stage, continuation lines joined, comments dropped. */
function stagesOf(text: string): string[][] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: string[][] = [];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) stages.push([line]);
    else stages.at(-1)?.push(line);
  }
  return stages;
}

describe('the image (Dockerfile)', () => {
  it('builds in one stage and runs from another that has no compilers, as the uid the Deployments ask for', async () => {
    const stages = stagesOf(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
    expect(stages.length).to.be.at.least(2);
    const runtime = stages.at(-1)!;
    expect(runtime.some((l) => /apt-get|npm (ci|install)/.test(l)), runtime.join('\n')).to.equal(false);
    const user = runtime.filter((l) => /^USER\s/.test(l)).at(-1);
    for (const d of renderInstall(DEFAULT_SETTINGS).filter((o: Obj) => o.kind === 'Deployment') as Obj[]) {
      const pod = d.spec.template.spec;
      // runAsNonRoot can only be verified by the kubelet for a numeric user.
      expect(user).to.equal(`USER ${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`);
    }
  });

  it('runs the compiled den, which knows the role each Deployment passes', async () => {
    const stages = stagesOf(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
    const entry = stages.at(-1)!.find((l) => /^ENTRYPOINT\s/.test(l))!;
    expect(JSON.parse(entry.slice('ENTRYPOINT'.length))).to.deep.equal(IMAGE_ENTRYPOINT);
    const tsconfig = JSON.parse(await readFile(join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: { outDir: string; rootDir: string } };
    expect(tsconfig.compilerOptions).to.include({ outDir: 'build', rootDir: '.' });
    for (const d of renderInstall(DEFAULT_SETTINGS).filter((o: Obj) => o.kind === 'Deployment') as Obj[]) {
      const container = d.spec.template.spec.containers[0];
      expect(Object.keys(ROLES)).to.include(container.args[0]);
      // A container that adds Node flags still runs the image's Node and den.
      if (container.command) expect([container.command[0], ...container.command.slice(-1)]).to.deep.equal(IMAGE_ENTRYPOINT);
    }
  });

  it('is built and run on the Node major that npm ci brings, so tests and benchmarks run on it too', async () => {
    const stages = stagesOf(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
    const bases = stages.map((stage) => /^FROM\s+node:(\d+)-/i.exec(stage[0])?.[1]);
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    const running = process.versions.node.split('.').map(Number);
    expect(bases, 'every stage FROM node:<major>-…').to.deep.equal(stages.map(() => String(running[0])));
    expect(pkg.devDependencies.node, 'the node package npm ci installs').to.match(new RegExp(`^\\^${running[0]}\\.`));
    const minimum = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(pkg.engines.node)?.slice(1).map(Number);
    expect(minimum, `engines.node ${pkg.engines.node} is >=x.y.z`).to.have.length(3);
    const [major, minor, patch] = minimum!;
    expect(running[0] * 1e6 + running[1] * 1e3 + running[2], `${process.version} satisfies engines.node ${pkg.engines.node}`)
      .to.be.at.least(major * 1e6 + minor * 1e3 + patch);
  });

  it('copies the postinstall script that builds the native addons before npm ci runs it', async () => {
    const build = stagesOf(await readFile(join(ROOT, 'Dockerfile'), 'utf8'))[0]!;
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: { postinstall: string } };
    const script = /node (\S+)/.exec(pkg.scripts.postinstall)![1]!;
    const copied = build.findIndex((l) => /^COPY\s/.test(l) && l.split(/\s+/).slice(1, -1).some((src) => script === src || script.startsWith(`${src.replace(/\/$/, '')}/`)));
    const install = build.findIndex((l) => /^RUN\s.*npm ci/.test(l));
    expect(copied, `a COPY of ${script}`).to.be.at.least(0);
    expect(copied).to.be.below(install);
  });

  it('keeps in the build context every file npm ci and npm run build read', async () => {
    const ignored = (await readFile(join(ROOT, '.dockerignore'), 'utf8'))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const tsconfig = JSON.parse(await readFile(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    const needed = ['package.json', 'package-lock.json', 'scripts', 'tsconfig.json', ...tsconfig.include.filter((dir) => dir !== 'test')];
    for (const name of needed) expect(ignored, name).to.not.include(name);
    expect(ignored).to.include.members(['node_modules', 'build', 'dist', '.git']);
  });
});
