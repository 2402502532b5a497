import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';

/** The packages under node_modules that importing `modules` loads, by name. */
async function packagesLoadedBy(modules: string[]): Promise<string[]> {
  const script = [
    `for (const path of ${JSON.stringify(modules)}) await import(path);`,
    "const { createRequire } = await import('node:module');",
    'const names = Object.keys(createRequire(import.meta.url).cache).map((file) => /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file)?.[1]).filter(Boolean);',
    'process.stdout.write(JSON.stringify([...new Set(names)].sort()));',
  ].join('\n');
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('../../', import.meta.url) });
  return JSON.parse(stdout) as string[];
}

describe('what each role loads', function () {
  this.timeout(60_000);

  it('the manager and the server check SSH keys without loading ssh2 (18 MiB of WebAssembly and code)', async () => {
    expect(await packagesLoadedBy(['./hooks/manager-role.ts'])).to.not.include('ssh2');
    expect(await packagesLoadedBy(['./server/role.ts'])).to.not.include('ssh2');
  });

  it('the gateway, which speaks SSH, does load it, so the check above can fail', async () => {
    expect(await packagesLoadedBy(['./gateway/role.ts'])).to.include('ssh2');
  });
});
