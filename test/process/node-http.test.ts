import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { http } from '../../process/node-http.js';

describe('node:http as the roles import it', () => {
  it('is the built-in module itself', () => {
    expect(http).to.equal(process.getBuiltinModule('node:http'));
    expect(http.createServer).to.be.a('function');
  });

  it('leaves undici unloaded in the den command and its three roles, none of which calls fetch at start', async () => {
    const script = [
      "for (const path of ['./cli/roles.ts', './cli/dev-commands.ts', './hooks/manager-role.ts', './gateway/role.ts', './server/role.ts']) await import(path);",
      'process.stdout.write(JSON.stringify(process.moduleLoadList.filter((name) => name.includes("undici"))));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('../../', import.meta.url) });
    expect(JSON.parse(stdout)).to.deep.equal([]);
  });
});
