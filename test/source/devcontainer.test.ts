import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsoncToJson, readDevcontainer, summarizeDevcontainer } from '../../source/devcontainer.js';
import { LIFECYCLE_REPOSITORY } from '../support/git-http-server.js';
import { devcontainerChoiceProblem, devcontainerFileOf, sourceViolations } from '../../contract/workspace-source.js';

describe('devcontainer.json read as JSON with comments (source/devcontainer.ts)', () => {
  it('removes line and block comments and trailing commas, and leaves strings that look like them alone', () => {
    const text = '{\n  // a comment\n  "url": "https://x//y", /* block */ "glob": "a/*b*/c",\n  "list": [1, 2, // last\n  ],\n  "quote": "say \\"hi\\" // still text",\n}';
    expect(JSON.parse(jsoncToJson(jsoncToJson(text)))).to.deep.equal({ url: 'https://x//y', glob: 'a/*b*/c', list: [1, 2], quote: 'say "hi" // still text' });
  });

  describe('finds the file where containers.dev looks', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'den-devcontainer-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('prefers .devcontainer/devcontainer.json over .devcontainer.json and lists the settings it does not apply, with why', async () => {
      mkdirSync(join(dir, 'api/.devcontainer'), { recursive: true });
      writeFileSync(join(dir, 'api/.devcontainer/devcontainer.json'), '{ "name": "x", "$schema": "s", "features": {}, "build": {}, }');
      writeFileSync(join(dir, 'api/.devcontainer.json'), '{ "image": "y" }');
      const reading = await readDevcontainer(dir, 'api');
      expect(reading).to.deep.equal({
        found: true,
        summary: {
          file: 'api/.devcontainer/devcontainer.json',
          workspaceFolder: `${dir}/api`,
          notApplied: [
            { setting: 'build', why: 'Den builds no images: the catalog is the administrators\' gate; ask for a catalog entry with this image' },
            { setting: 'features', why: 'Den installs no features at start: ask for a catalog image that has them, or install them in postCreateCommand' },
          ],
        },
      });
    });

    it('says nothing is there when neither file exists, and names a file that is not an object', async () => {
      mkdirSync(join(dir, 'api'));
      expect(await readDevcontainer(dir, 'api')).to.deep.equal({ found: false });
      writeFileSync(join(dir, 'api/.devcontainer.json'), '[1]');
      expect(await readDevcontainer(dir, 'api')).to.deep.equal({ found: true, summary: { file: 'api/.devcontainer.json', problem: 'it is not a JSON object' } });
    });

    it('reads the configuration spec.source.devcontainer names, and says so when the repository lacks it', async () => {
      mkdirSync(join(dir, 'api/.devcontainer/python'), { recursive: true });
      writeFileSync(join(dir, 'api/.devcontainer/python/devcontainer.json'), '{ "image": "py" }');
      writeFileSync(join(dir, 'api/.devcontainer.json'), '{ "image": "default" }');
      const named = await readDevcontainer(dir, 'api', 'python');
      expect(named).to.deep.include({ found: true });
      expect((named as { summary: { image?: string } }).summary.image).to.equal('py');
      expect(await readDevcontainer(dir, 'api', 'go')).to.deep.equal({
        found: true,
        summary: { file: 'api/.devcontainer/go/devcontainer.json', problem: 'the repository has no .devcontainer/go/devcontainer.json (spec.source.devcontainer is "go")' },
      });
    });
  });

  it('turns every setting Den applies into the summary the workspace applies, filling in the workspace folder, and lists the rest with why', () => {
    const parsed = JSON.parse(jsoncToJson(jsoncToJson(LIFECYCLE_REPOSITORY['.devcontainer/devcontainer.json']!))) as Record<string, unknown>;
    const summary = summarizeDevcontainer(parsed, '.devcontainer/devcontainer.json', '/home/dev', 'lifecycle');
    expect(summary).to.deep.equal({
      file: 'lifecycle/.devcontainer/devcontainer.json',
      image: 'registry.example/dev:1',
      containerEnv: { GREETING: 'hello', WHERE: '/home/dev/lifecycle/src', TOKEN: 'none' },
      remoteEnv: { EDITOR: 'vim' },
      containerUser: 'no-such-user',
      remoteUser: 'root',
      workspaceFolder: '/home/dev/lifecycle/src',
      onCreateCommand: "sh -c 'echo created >> created.txt'",
      postCreateCommand: '(echo post-create ran; echo "$GREETING" >> post-create.txt) && (pwd > where.txt)',
      postStartCommand: 'echo started >> started.txt',
      ports: [{ port: 3000, label: 'Web' }, { port: 8080 }],
      extensions: ['dbaeumer.vscode-eslint'],
      hostRequirements: { cpus: 4, memory: '8gb', storage: '32gb' },
      notApplied: [
        { setting: 'remoteEnv.PATH', why: 'it uses a ${...} variable Den does not fill in (only ${containerWorkspaceFolder}, its Basename and ${localEnv:NAME:default})' },
        { setting: 'forwardPorts "db:5432"', why: 'only ports of the workspace itself are served (a number, or localhost:<port>)' },
        { setting: 'build', why: 'Den builds no images: the catalog is the administrators\' gate; ask for a catalog entry with this image' },
        { setting: 'features', why: 'Den installs no features at start: ask for a catalog image that has them, or install them in postCreateCommand' },
        { setting: 'customizations.jetbrains', why: 'Den shows only customizations.vscode.extensions' },
      ],
    });
  });

  it('keeps a workspaceFolder inside the home, and starts in the clone when it points elsewhere, saying so', () => {
    expect(summarizeDevcontainer({ workspaceFolder: '/home/dev/other' }, '.devcontainer.json', '/home/dev', 'api').workspaceFolder).to.equal('/home/dev/other');
    const elsewhere = summarizeDevcontainer({ workspaceFolder: '/srv/app' }, '.devcontainer.json', '/home/dev', 'api');
    expect(elsewhere.workspaceFolder).to.equal('/home/dev/api');
    expect(elsewhere.notApplied).to.deep.equal([{ setting: 'workspaceFolder', why: '"/srv/app" is not inside the home (/home/dev) or /workspaces/api; sessions start in /home/dev/api' }]);
  });

  it('spec.source.devcontainer is a configuration name or a .json path inside the repository (one rule for webhook, REST and hook)', () => {
    expect(devcontainerFileOf('python')).to.equal('.devcontainer/python/devcontainer.json');
    expect(devcontainerFileOf('tools/dev.json')).to.equal('tools/dev.json');
    expect(devcontainerChoiceProblem('python')).to.equal(undefined);
    expect(devcontainerChoiceProblem('../x.json')).to.equal('"../x.json" must stay inside the repository');
    expect(devcontainerChoiceProblem('/etc/x.json')).to.match(/must be relative to the repository/);
    expect(devcontainerChoiceProblem('a b')).to.match(/neither a configuration name/);
    expect(sourceViolations({ git: { url: 'https://h/o/api.git' }, devcontainer: 'a/../../b.json' }).map((v) => v.field)).to.deep.equal(['spec.source.devcontainer']);
  });
});
