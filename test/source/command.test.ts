import { expect } from 'chai';
import { cloneReport } from '../../source/command.js';
import { CLONE_REPORT_LIMIT, parseCloneReport, type DotfilesReport } from '../../contract/devcontainer.js';

/** What the kubelet copies into the pod's status: the last 4096 bytes of the termination message file. */
function kubeletKeeps(written: string): string {
  return Buffer.from(written).subarray(-4096).toString('utf8');
}

const DOTFILES: DotfilesReport = { url: 'https://git.example.com/me/dotfiles.git', fresh: true, script: 'install.sh' };

describe("the clone step's termination message (source/command.ts cloneReport)", () => {
  for (const [what, words] of [
    ['multi-byte words', 'é'.repeat(2500)],
    ['control characters JSON escapes', '\u0007'.repeat(1500)],
  ] as const) {
    it(`cuts ${what} to the bytes the kubelet keeps, so the hook still reads the report and its dotfiles`, () => {
      const written = cloneReport({ message: `Cloned https://git.example.com/team/api.git (branch main) into ~/api. ${words}`, dotfiles: DOTFILES });
      expect(Buffer.byteLength(written)).to.be.at.most(CLONE_REPORT_LIMIT);
      const read = parseCloneReport(kubeletKeeps(written));
      expect(read.dotfiles).to.deep.equal(DOTFILES);
      expect(read.message).to.match(/^Cloned https:\/\/git\.example\.com\/team\/api\.git \(branch main\) into ~\/api\. /).and.match(/…$/);
    });
  }

  it('keeps a report that fits as it is', () => {
    const report = { message: `Cloned https://git.example.com/team/api.git (branch main) into ~/api. ${'é'.repeat(1000)}`, dotfiles: DOTFILES };
    expect(cloneReport(report)).to.equal(JSON.stringify(report));
  });

  it('replaces a summary too large by its problem and still fits with multi-byte words and the dotfiles', () => {
    const dotfiles: DotfilesReport = { url: 'https://git.example.com/me/dotfiles.git', fresh: true, problem: `the host said: ${'€'.repeat(600)}` };
    const written = cloneReport({
      message: `Cloned x into ~/api. ${'€'.repeat(1200)} Read ~/api/.devcontainer.json; the workspace applies it.`,
      devcontainer: { file: 'api/.devcontainer.json', postCreateCommand: 'x'.repeat(5000) },
      dotfiles,
    });
    expect(Buffer.byteLength(written)).to.be.at.most(CLONE_REPORT_LIMIT);
    const read = parseCloneReport(kubeletKeeps(written));
    expect(read.devcontainer?.problem).to.match(/^what Den would apply from it takes 5056 bytes/);
    expect(read.dotfiles).to.deep.equal(dotfiles);
    expect(read.message).to.match(/^Cloned x into ~\/api\. €/);
  });

  it('always writes JSON within the limit, even when the dotfiles alone would not fit', () => {
    const written = cloneReport({ message: 'Cloned x into ~/api.', dotfiles: { url: `https://git.example.com/${'é'.repeat(3000)}.git`, fresh: true, problem: 'not found' } });
    expect(Buffer.byteLength(written)).to.be.at.most(CLONE_REPORT_LIMIT);
    expect(parseCloneReport(kubeletKeeps(written))).to.deep.equal({ message: 'Cloned x into ~/api.' });
  });
});
