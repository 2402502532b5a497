import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsoncToJson, readDevcontainer } from '../../source/devcontainer.js';

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

    it('prefers .devcontainer/devcontainer.json over .devcontainer.json and lists its settings but name and $schema', async () => {
      mkdirSync(join(dir, '.devcontainer'));
      writeFileSync(join(dir, '.devcontainer/devcontainer.json'), '{ "name": "x", "$schema": "s", "features": {}, "build": {}, }');
      writeFileSync(join(dir, '.devcontainer.json'), '{ "image": "y" }');
      expect(await readDevcontainer(dir)).to.deep.equal({ found: true, file: '.devcontainer/devcontainer.json', settings: ['build', 'features'] });
    });

    it('says nothing is there when neither file exists, and names a file that is not an object', async () => {
      expect(await readDevcontainer(dir)).to.deep.equal({ found: false });
      writeFileSync(join(dir, '.devcontainer.json'), '[1]');
      expect(await readDevcontainer(dir)).to.deep.equal({ found: true, file: '.devcontainer.json', problem: 'it is not a JSON object' });
    });
  });
});
