// The project read as a house: files are rooms, imports are arrows. No arrow may go round in a
// circle, between files or between folders; each top-level folder points only at the floors
// LAYERS allows it (the ground floor, the process kit and kube/, never up into a role's folder);
// the three processes' folders (server/, gateway/, hooks/) do not reach into each other: a rule
// two of them follow lives below them (contract/, ssh/, shell/, koa/, kube/, process/). The
// den.dev contract every process reads at run time (contract/: the CRDs, their types and rules,
// the names and addresses) sits below the processes; infra/ is the install chart alone, run by
// `npm run synth`, and no process imports it; the generated cdk8s module is the top-level
// imports/, read by the children the manager renders (hooks/*/children/). Inside web/ the
// sub-folders are floors too (INNER_LAYERS). Only an entry point named in ENTRY_POINTS may start
// another process's part. Besides the arrows: UserSpace is declared once, REST lives in
// server/api/ alone, and no hand-written source file is over 400 lines.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect } from 'chai';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SKIPPED = new Set(['node_modules', 'build', 'dist', 'cdk.out', 'test']);
const ROLE_FOLDERS = ['hooks', 'server', 'gateway', 'cli', 'web'];

/** Every .ts file of the project outside test/, as a path relative to the root with `/`. */
function projectFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return projectFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [relative(ROOT, path).split('\\').join('/')] : [];
  });
}

/** Each file's imports of other project files: static, type-only, re-exports and `import()` alike. */
export function importGraph(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(read(file), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => relative(ROOT, resolve(ROOT, dirname(file), spec)).split('\\').join('/').replace(/\.js$/, '.ts'))
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every circle of imports, each as the files along it with the first repeated at the end. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  const circles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return circles;
}

const folderOf = (file: string) => file.split('/')[0]!;
const PROCESS_FOLDERS = ['server', 'gateway', 'hooks'];
/** Files that start a process and so may start another process's part; none does today. */
const ENTRY_POINTS: readonly string[] = [];

/** The top-level folders each top-level folder may import (besides itself). */
export const LAYERS: Record<string, readonly string[]> = {
  process: [],
  kube: ['process'],
  imports: [],
  contract: ['kube', 'process'],
  infra: ['contract', 'kube', 'process'],
  koa: ['kube', 'process'],
  ssh: ['contract', 'kube', 'process'],
  shell: ['contract', 'kube', 'process'],
  source: ['contract', 'kube', 'process'],
  web: [],
  hooks: ['imports', 'contract', 'koa', 'ssh', 'kube', 'process'],
  gateway: ['contract', 'ssh', 'shell', 'kube', 'process'],
  server: ['contract', 'koa', 'ssh', 'shell', 'web', 'kube', 'process'],
  cli: ['hooks', 'gateway', 'server', 'source', 'contract', 'koa', 'ssh', 'shell', 'web', 'kube', 'process'],
};

/** Inside infra/ and web/: the sub-folders (or root files, as `web/`) each sub-folder may import. */
export const INNER_LAYERS: Record<string, readonly string[]> = {
  'infra/install': [],
  infra: ['infra/install'],
  web: [],
  'web/templates': ['web'],
  'web/scripts': ['web'],
};

/** Floors that import nothing of Den outside themselves: the developer commands run on a laptop with no cluster code. */
export const CONFINED: readonly string[] = ['cli/dev'];

/** A file's top-level folder and, for infra/ and web/, its floor inside (a root file counts as the folder itself). */
function innerFloorOf(file: string): string {
  const [top, second] = file.split('/');
  return second && !second.endsWith('.ts') ? `${top}/${second}` : top!;
}

/** Arrows a layer table does not allow: from a top-level folder, or from a floor inside infra/ and web/. */
export function forbiddenArrows(graph: Map<string, string[]>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets.flatMap((t) => {
      const [from, to] = [folderOf(file), folderOf(t)];
      if (CONFINED.includes(innerFloorOf(file)) && innerFloorOf(t) !== innerFloorOf(file)) return [`${file} -> ${t}`];
      if (from !== to) return LAYERS[from]?.includes(to) ? [] : [`${file} -> ${t}`];
      const [inFrom, inTo] = [innerFloorOf(file), innerFloorOf(t)];
      const inner = INNER_LAYERS[inFrom];
      return !inner || inFrom === inTo || inner.includes(inTo) ? [] : [`${file} -> ${t}`];
    }),
  );
}

/** The graph of folders (each file's own folder), an arrow wherever one of its files imports another folder's. */
export function folderGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  const dir = (file: string) => dirname(file);
  for (const [file, targets] of graph) {
    const from = folders.get(dir(file)) ?? new Set<string>();
    for (const t of targets) if (dir(t) !== dir(file)) from.add(dir(t));
    folders.set(dir(file), from);
  }
  return new Map([...folders].map(([folder, targets]) => [folder, [...targets].sort()]));
}

/** Arrows from one process's folder into another's, except from an entry point. */
export function crossProcessArrows(graph: Map<string, string[]>, entryPoints = ENTRY_POINTS): string[] {
  return [...graph].flatMap(([file, targets]) => {
    const from = folderOf(file);
    if (!PROCESS_FOLDERS.includes(from) || entryPoints.includes(file)) return [];
    return targets.filter((t) => PROCESS_FOLDERS.includes(folderOf(t)) && folderOf(t) !== from).map((t) => `${file} -> ${t}`);
  });
}

describe('the import graph of the project', () => {
  const files = projectFiles();
  const graph = importGraph(files, (file) => readFileSync(join(ROOT, file), 'utf8'));

  it('reads the project: the executable, every role and the ground floor are in it, and every top-level folder has a layer', () => {
    for (const file of ['cli/den.ts', 'cli/roles.ts', 'hooks/manager-role.ts', 'server/role.ts', 'gateway/role.ts', 'process/role.ts', 'kube/client.ts']) expect(files).to.include(file);
    expect(graph.get('cli/roles.ts')).to.include.members(['gateway/role.ts', 'hooks/manager-role.ts', 'server/role.ts']);
    expect([...new Set(files.filter((f) => f.includes('/')).map(folderOf))].filter((folder) => !(folder in LAYERS))).to.deep.equal([]);
    for (const entry of ENTRY_POINTS) expect(files).to.include(entry);
  });

  it('has no circle between folders', () => {
    expect(importCircles(folderGraph(graph)).map((circle) => circle.join(' -> '))).to.deep.equal([]);
  });

  it('has only the arrows its layers allow, between top-level folders and between the floors of infra/ and web/', () => {
    expect(forbiddenArrows(graph)).to.deep.equal([]);
  });

  it('has no circle', () => {
    expect(importCircles(graph).map((circle) => circle.join(' -> '))).to.deep.equal([]);
  });

  it('has no arrow from the process kit or kube/ up into a role folder', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      ['process', 'kube'].includes(folderOf(file)) ? targets.filter((t) => ROLE_FOLDERS.includes(folderOf(t))).map((t) => `${file} -> ${t}`) : [],
    );
    expect(upward).to.deep.equal([]);
  });

  it("has no arrow from one process's folder into another's (server, gateway, hooks) but from an entry point", () => {
    expect(crossProcessArrows(graph)).to.deep.equal([]);
  });

  it('keeps the process kit free of anything else of Den', () => {
    const outward = [...graph].flatMap(([file, targets]) =>
      folderOf(file) === 'process' ? targets.filter((t) => folderOf(t) !== 'process').map((t) => `${file} -> ${t}`) : [],
    );
    expect(outward).to.deep.equal([]);
  });
});

/** Generated files, written by a script and checked against it (test/imports/k8s.test.ts), not by hand. */
const GENERATED: readonly string[] = ['imports/k8s.cjs', 'imports/k8s.d.cts'];
const SOURCE = /\.(ts|cts|mts|js|cjs|mjs|css)$/;
const LINES_AT_MOST = 400;

/** Every source file of the repository, tests included, relative to the root with `/`. */
function sourceFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || ['node_modules', 'build', 'dist', 'cdk.out'].includes(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE.test(entry.name) ? [relative(ROOT, path).split('\\').join('/')] : [];
  });
}

describe('the folders of the project', () => {
  const files = projectFiles();
  const graph = importGraph(files, (file) => readFileSync(join(ROOT, file), 'utf8'));

  it('keeps the den.dev contract in contract/ and the install chart alone in infra/: no file of server/ or gateway/ imports infra/', () => {
    for (const file of ['contract/index.ts', 'contract/user-space.ts', 'contract/names.ts', 'contract/apps-domain.ts', 'contract/den.dev.yaml', 'infra/install/synth.ts']) expect(existsSync(join(ROOT, file)), file).to.equal(true);
    expect(readdirSync(join(ROOT, 'infra'))).to.not.include.members(['crds', 'children']);
    const intoInfra = [...graph].flatMap(([file, targets]) =>
      ['server', 'gateway'].includes(folderOf(file)) ? targets.filter((t) => folderOf(t) === 'infra').map((t) => `${file} -> ${t}`) : [],
    );
    expect(intoInfra).to.deep.equal([]);
  });

  it('holds the generated cdk8s module in a top-level imports/, read only by the children beside the hooks', () => {
    for (const file of GENERATED) expect(existsSync(join(ROOT, file)), file).to.equal(true);
    const readers = files.flatMap((file) =>
      ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true).importedFiles
        .filter((i) => i.fileName.endsWith('.cjs'))
        .map((i) => ({ file, target: relative(ROOT, resolve(ROOT, dirname(file), i.fileName)).split('\\').join('/') })),
    );
    expect(readers.length).to.be.above(0);
    expect(readers.filter((r) => r.target !== 'imports/k8s.cjs' || !/^hooks\/[^/]+\/children\//.test(r.file))).to.deep.equal([]);
  });

  it('declares the UserSpace type once, beside its CRD', () => {
    const declaring = files.filter((file) => /^export (interface|type) UserSpace\b/m.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(declaring).to.deep.equal(['contract/user-space.ts']);
  });

  it('keeps REST in server/api/ alone: there is no server/routes/', () => {
    expect(existsSync(join(ROOT, 'server/routes'))).to.equal(false);
    expect(files.filter((file) => file.startsWith('server/routes/'))).to.deep.equal([]);
  });

  it(`has no hand-written source file over ${LINES_AT_MOST} lines, tests included`, () => {
    const long = sourceFiles()
      .filter((file) => !GENERATED.includes(file))
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > LINES_AT_MOST)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).to.deep.equal([]);
  });
});

describe('crossProcessArrows', () => {
  it("names a module of one process importing another's, and lets entry points and shared floors be", () => {
    const graph = new Map([
      ['server/terminal/target.ts', ['gateway/target.ts', 'shell/target.ts']],
      ['hooks/registry/cloud-registry.ts', ['server/api/concurrency.ts', 'process/concurrency.ts']],
      ['hooks/manager-role.ts', ['hooks/admission/index.ts', 'gateway/host-key.ts']],
      ['server/role.ts', ['server/app.ts']],
      ['cli/users.ts', ['server/auth/passwords.ts']],
    ]);
    expect(crossProcessArrows(graph, ['hooks/manager-role.ts'])).to.deep.equal(['server/terminal/target.ts -> gateway/target.ts', 'hooks/registry/cloud-registry.ts -> server/api/concurrency.ts']);
    expect(crossProcessArrows(graph, [])).to.include('hooks/manager-role.ts -> gateway/host-key.ts');
  });
});

describe('forbiddenArrows and folderGraph', () => {
  it('names an arrow down a floor its layers do not list, one back up inside infra/ and web/, one into infra/ from a process, and one out of a confined floor', () => {
    const graph = new Map([
      ['kube/client.ts', ['process/role.ts', 'contract/workspace.ts']],
      ['contract/workspace.ts', ['hooks/workspace/children/props.ts', 'kube/group.ts']],
      ['hooks/workspace/children/props.ts', ['contract/schema.ts', 'imports/k8s.ts']],
      ['infra/install/chart.ts', ['infra/synth.ts', 'contract/names.ts']],
      ['server/app.ts', ['infra/install/settings.ts', 'contract/names.ts']],
      ['web/scripts/terminal.ts', ['web/terminal-protocol.ts', 'web/templates/layout.ts']],
      ['server/pages/new.ts', ['web/templates/new.ts', 'shell/target.ts']],
      ['cli/dev/ssh.ts', ['cli/dev/io.ts', 'cli/roles.ts']],
    ]);
    expect(forbiddenArrows(graph)).to.deep.equal([
      'kube/client.ts -> contract/workspace.ts',
      'contract/workspace.ts -> hooks/workspace/children/props.ts',
      'infra/install/chart.ts -> infra/synth.ts',
      'server/app.ts -> infra/install/settings.ts',
      'web/scripts/terminal.ts -> web/templates/layout.ts',
      'cli/dev/ssh.ts -> cli/roles.ts',
    ]);
  });

  it('draws one arrow per pair of folders, so two folders importing each other make a circle', () => {
    const graph = new Map([
      ['contract/workspace.ts', ['hooks/workspace/children/props.ts', 'contract/schema.ts']],
      ['contract/schema.ts', []],
      ['hooks/workspace/children/props.ts', ['contract/schema.ts']],
    ]);
    expect(folderGraph(graph)).to.deep.equal(new Map([['contract', ['hooks/workspace/children']], ['hooks/workspace/children', ['contract']]]));
    expect(importCircles(folderGraph(graph))).to.deep.equal([['contract', 'hooks/workspace/children', 'contract']]);
  });
});

describe('importCircles', () => {
  it('finds a circle through a dynamic import and names its files in order', () => {
    const graph = importGraph(['cli/roles.ts', 'gateway/role.ts', 'process/role.ts'], (file) => ({
      'cli/roles.ts': "export const ROLES = { gateway: () => import('../gateway/role.js') };",
      'gateway/role.ts': "import type { Role } from '../process/role.js';\nimport { ROLES } from '../cli/roles.js';",
      'process/role.ts': 'export type Role = {};',
    })[file]!);
    expect(importCircles(graph)).to.deep.equal([['cli/roles.ts', 'gateway/role.ts', 'cli/roles.ts']]);
  });

  it('finds none in a graph whose arrows all point one way', () => {
    expect(importCircles(new Map([['a.ts', ['b.ts', 'c.ts']], ['b.ts', ['c.ts']], ['c.ts', []]]))).to.deep.equal([]);
  });
});
