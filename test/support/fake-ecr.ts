// A loopback server speaking ECR's JSON protocol (X-Amz-Target:
// AmazonEC2ContainerRegistry_V20150921.<Operation>, application/x-amz-json-1.1) and STS's query
// protocol (Action=AssumeRole, XML answers), for the real AWS SDK to talk to through
// AWS_ENDPOINT_URL_ECR / AWS_ENDPOINT_URL_STS. It keeps repositories per account, pages with
// nextToken, counts calls, records which access key signed each call, and fails on request.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

const ECR_TARGET_PREFIX = 'AmazonEC2ContainerRegistry_V20150921.';

export interface FakeImage {
  tags: string[];
  /** Seconds since the epoch, as the protocol carries it. */
  pushedAt: number;
  digest?: string;
}

interface Repo {
  images: FakeImage[];
  createdAt: number;
}

export interface InjectedEcrFailure {
  /** `DescribeRepositories`, `DescribeImages` or `AssumeRole`. */
  operation: string;
  /** Error type: `ThrottlingException`, `AccessDeniedException`, `ExpiredTokenException`, `AccessDenied` (STS)… */
  type: string;
  message?: string;
  /** How many calls fail before the next succeeds. */
  times: number;
}

export interface EcrCall {
  operation: string;
  accessKeyId: string;
  region: string;
  body: Record<string, unknown>;
  /** When the call arrived (Date.now()). */
  at: number;
}

export interface FakeEcrOptions {
  /** Access key id → the account it belongs to (an empty registryId means this one). */
  accounts?: Record<string, string>;
  /** Largest page DescribeRepositories / DescribeImages return whatever maxResults asks. */
  maxPage?: number;
}

function digestOf(repository: string, tags: string[]): string {
  return `sha256:${Buffer.from(`${repository}:${tags.join(',')}`).toString('hex').padEnd(64, '0').slice(0, 64)}`;
}

export class FakeEcr {
  readonly calls: EcrCall[] = [];
  /** Role ARN → the temporary access key id handed out for it. */
  readonly assumed = new Map<string, string>();
  private readonly repos = new Map<string, Map<string, Repo>>();
  private readonly failures: InjectedEcrFailure[] = [];
  private readonly accounts: Record<string, string>;
  private server?: http.Server;
  private readonly sockets = new Set<Socket>();
  /** Delay before answering, per account (a slow registry). */
  readonly delays = new Map<string, number>();
  url = '';

  constructor(private readonly opts: FakeEcrOptions = {}) {
    this.accounts = { ...opts.accounts };
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }

  /** Adds (or replaces) a repository with its images. */
  putRepository(account: string, name: string, images: FakeImage[] = []): void {
    let repos = this.repos.get(account);
    if (!repos) this.repos.set(account, (repos = new Map()));
    repos.set(name, { images: images.map((i) => ({ ...i, tags: [...i.tags] })), createdAt: 1_700_000_000 });
  }

  /** Removes every repository of every account. */
  clear(): void {
    this.repos.clear();
  }

  deleteRepository(account: string, name: string): void {
    this.repos.get(account)?.delete(name);
  }

  /** Moves `tag` to a new image pushed at `pushedAt`, as `docker push` of an existing tag does. */
  pushImage(account: string, repository: string, tags: string[], pushedAt: number): void {
    const repo = this.repos.get(account)?.get(repository);
    if (!repo) throw new Error(`no repository ${repository} in ${account}`);
    for (const image of repo.images) image.tags = image.tags.filter((t) => !tags.includes(t));
    repo.images.push({ tags: [...tags], pushedAt });
  }

  fail(failure: InjectedEcrFailure): void {
    this.failures.push({ ...failure });
  }

  callsOf(operation: string): EcrCall[] {
    return this.calls.filter((c) => c.operation === operation);
  }

  private takeFailure(operation: string): InjectedEcrFailure | undefined {
    const i = this.failures.findIndex((f) => f.operation === operation && f.times > 0);
    if (i < 0) return undefined;
    const failure = this.failures[i]!;
    if (--failure.times === 0) this.failures.splice(i, 1);
    return failure;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const auth = String(req.headers.authorization ?? '');
    const scope = /Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\//.exec(auth);
    const accessKeyId = scope?.[1] ?? '';
    const region = scope?.[2] ?? '';
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target.startsWith(ECR_TARGET_PREFIX)) return this.ecr(target.slice(ECR_TARGET_PREFIX.length), raw, accessKeyId, region, res);
    const form = new URLSearchParams(raw);
    if (form.get('Action') === 'AssumeRole') return this.assumeRole(form, accessKeyId, region, res);
    res.writeHead(400, { 'content-type': 'text/plain' }).end(`unknown operation ${target || form.get('Action') || ''}`);
  }

  private accountOf(accessKeyId: string): string {
    return this.accounts[accessKeyId] ?? '000000000000';
  }

  private async ecr(operation: string, raw: string, accessKeyId: string, region: string, res: http.ServerResponse): Promise<void> {
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return this.ecrError(res, 'SerializationException', 'the body is not JSON');
    }
    this.calls.push({ operation, accessKeyId, region, body, at: Date.now() });
    if (!accessKeyId) return this.ecrError(res, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
    const account = typeof body.registryId === 'string' && body.registryId ? body.registryId : this.accountOf(accessKeyId);
    const delay = this.delays.get(account);
    if (delay) await new Promise((ok) => setTimeout(ok, delay));
    const failure = this.takeFailure(operation);
    if (failure) return this.ecrError(res, failure.type, failure.message ?? `${failure.type} on ${operation}`);
    const repos = this.repos.get(account) ?? new Map<string, Repo>();
    const maxResults = Math.min(typeof body.maxResults === 'number' ? body.maxResults : 100, this.opts.maxPage ?? 1000);
    const offset = typeof body.nextToken === 'string' ? Number(Buffer.from(body.nextToken, 'base64url').toString('utf8')) : 0;
    const page = <T>(items: T[]) => {
      const slice = items.slice(offset, offset + maxResults);
      const next = offset + maxResults < items.length ? Buffer.from(String(offset + maxResults)).toString('base64url') : undefined;
      return { slice, next };
    };
    if (operation === 'DescribeRepositories') {
      const names = [...repos.keys()].sort();
      const { slice, next } = page(names);
      return this.ecrOk(res, {
        repositories: slice.map((name) => ({
          repositoryArn: `arn:aws:ecr:${region}:${account}:repository/${name}`,
          registryId: account,
          repositoryName: name,
          repositoryUri: `${account}.dkr.ecr.${region}.amazonaws.com/${name}`,
          createdAt: repos.get(name)!.createdAt,
          imageTagMutability: 'MUTABLE',
        })),
        ...(next ? { nextToken: next } : {}),
      });
    }
    if (operation === 'DescribeImages') {
      const name = String(body.repositoryName ?? '');
      const repo = repos.get(name);
      if (!repo) return this.ecrError(res, 'RepositoryNotFoundException', `The repository with name '${name}' does not exist in the registry with id '${account}'`);
      const status = (body.filter as { tagStatus?: string } | undefined)?.tagStatus ?? 'ANY';
      const images = repo.images.filter((i) => (status === 'TAGGED' ? i.tags.length > 0 : status === 'UNTAGGED' ? i.tags.length === 0 : true));
      const { slice, next } = page(images);
      return this.ecrOk(res, {
        imageDetails: slice.map((i) => ({
          registryId: account,
          repositoryName: name,
          imageDigest: i.digest ?? digestOf(name, i.tags),
          ...(i.tags.length ? { imageTags: i.tags } : {}),
          imageSizeInBytes: 1024,
          imagePushedAt: i.pushedAt,
          imageManifestMediaType: 'application/vnd.docker.distribution.manifest.v2+json',
        })),
        ...(next ? { nextToken: next } : {}),
      });
    }
    return this.ecrError(res, 'UnknownOperationException', `unknown operation ${operation}`);
  }

  private ecrOk(res: http.ServerResponse, body: unknown): void {
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomBytes(8).toString('hex') }).end(JSON.stringify(body));
  }

  private ecrError(res: http.ServerResponse, type: string, message: string): void {
    res
      .writeHead(400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomBytes(8).toString('hex') })
      .end(JSON.stringify({ __type: type, message }));
  }

  private assumeRole(form: URLSearchParams, accessKeyId: string, region: string, res: http.ServerResponse): void {
    const roleArn = form.get('RoleArn') ?? '';
    this.calls.push({ operation: 'AssumeRole', accessKeyId, region, body: Object.fromEntries(form), at: Date.now() });
    const failure = this.takeFailure('AssumeRole');
    if (failure || !accessKeyId) {
      const code = failure?.type ?? 'InvalidClientTokenId';
      const message = failure?.message ?? 'The security token included in the request is invalid.';
      res
        .writeHead(403, { 'content-type': 'text/xml' })
        .end(`<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${randomBytes(8).toString('hex')}</RequestId></ErrorResponse>`);
      return;
    }
    const account = /^arn:aws:iam::(\d{12}):role\//.exec(roleArn)?.[1] ?? '000000000000';
    const tempKey = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
    this.accounts[tempKey] = account;
    this.assumed.set(roleArn, tempKey);
    const expiration = new Date(Date.now() + 3600_000).toISOString();
    const session = form.get('RoleSessionName') ?? '';
    res.writeHead(200, { 'content-type': 'text/xml' }).end(`<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <AssumedRoleUser>
      <AssumedRoleId>AROA${randomBytes(6).toString('hex').toUpperCase()}:${session}</AssumedRoleId>
      <Arn>${roleArn.replace(':iam::', ':sts::').replace(':role/', ':assumed-role/')}/${session}</Arn>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>${tempKey}</AccessKeyId>
      <SecretAccessKey>${randomBytes(20).toString('base64')}</SecretAccessKey>
      <SessionToken>${randomBytes(32).toString('base64')}</SessionToken>
      <Expiration>${expiration}</Expiration>
    </Credentials>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>${randomBytes(8).toString('hex')}</RequestId></ResponseMetadata>
</AssumeRoleResponse>`);
  }
}

/** The SDK's environment pointed at `url` with static credentials; returns a function that restores the previous one. */
export function useAwsEnvironment(vars: Record<string, string | undefined>): () => void {
  const previous: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) {
    previous[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** The SDK environment for a fake on `url`: its endpoints, a region, static credentials, no shared files or instance metadata. */
export function fakeAwsEnvironment(url: string, accessKeyId = 'AKIDDENTEST', region = 'eu-west-1'): Record<string, string | undefined> {
  return {
    AWS_ENDPOINT_URL_ECR: url,
    AWS_ENDPOINT_URL_STS: url,
    AWS_ENDPOINT_URL: undefined,
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: 'fake-secret-for-tests',
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_CONFIG_FILE: '/nonexistent/den-test-aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/den-test-aws-credentials',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}
