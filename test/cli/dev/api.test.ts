// How `den` reads a refusal of the REST API (cli/dev/api.ts): the server's `{error}` as it is,
// but a quota the cluster has not counted yet in the person's words.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { ApiError, DenApi } from '../../../cli/dev/api.js';

describe("den's reading of the server's refusals", () => {
  let server: Server;
  let answer: { status: number; body: string };
  let api: DenApi;

  before(async () => {
    server = createServer((_req, res) => res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(answer.body));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    api = new DenApi(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'svc_token');
  });

  after(() => new Promise<void>((ok) => server.close(() => ok())));

  async function refusal(status: number, body: unknown): Promise<ApiError> {
    answer = { status, body: JSON.stringify(body) };
    const err = await api.request('POST', '/workspaces', { body: { name: 'dev' } }).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(ApiError);
    return err as ApiError;
  }

  it('says a quota not yet counted (the cluster\'s 403, passed on by REST) as a space still being set up', async () => {
    const err = await refusal(403, { error: 'workspaces.den.dev "dev" is forbidden: status unknown for quota: svc-quota, resources: count/workspaces.den.dev' });
    expect(err).to.include({ status: 403, message: 'your space is still being set up: try again in a few seconds' });
  });

  it('keeps any other 403 as the server said it', async () => {
    const said = 'workspaces.den.dev "dev" is forbidden: exceeded quota: svc-quota, requested: count/workspaces.den.dev=1, used: count/workspaces.den.dev=3, limited: count/workspaces.den.dev=3';
    expect(await refusal(403, { error: said })).to.include({ status: 403, message: said });
  });
});
