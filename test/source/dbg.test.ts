import { mkdtempSync } from 'node:fs';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { sshTransport, STAND_IN_URL } from '../../source/ssh-transport.js';
import { sshRemoteOf } from '../../contract/workspace-source.js';
import { startGitSshServer } from '../support/git-ssh-server.js';
it('dbg', async function () {
  this.timeout(20000);
  const s = await startGitSshServer();
  const url = `ssh://git@127.0.0.1:${s.port}/app.git`;
  const t = sshTransport(url, sshRemoteOf(url)!, { privateKey: s.personKey.privateKey, knownHost: s.knownHostLine });
  const dir = mkdtempSync(join(tmpdir(), 'dbg-'));
  const http = { request: async (r: any) => { console.log(r.method, r.url); if (r.body) { const b: any[] = []; for await (const c of r.body) b.push(Buffer.from(c)); console.log('REQ', JSON.stringify(Buffer.concat(b).toString('latin1'))); r = { ...r, body: b }; } const res = await t.http.request(r); { const out: Buffer[] = []; for await (const c of res.body!) out.push(Buffer.from(c)); const all = Buffer.concat(out); console.log('RES', all.length, JSON.stringify(all.toString('latin1').slice(0, 300))); return { ...res, body: (async function* () { yield all; })() }; } } };
  try { await git.clone({ fs, http, dir, url: STAND_IN_URL, noCheckout: true }); } catch (e) { console.log(String(e)); }
  t.close(); await s.close();
});
