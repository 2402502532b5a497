// Provider `cloud-registry`: an ECR-compatible registry through the AWS SDK. Credentials come
// from the process's ambient chain (environment, web identity, instance role) or from assuming
// spec.cloud.roleArn with them; nothing is read from or written to the cluster. The SDK's
// standard environment applies (AWS_REGION, AWS_ENDPOINT_URL_ECR, AWS_ENDPOINT_URL_STS, AWS_*).
// The SDK is loaded on the first listing: a manager with no such registry never pays its weight.
import type { Repository } from '@aws-sdk/client-ecr';
import { mapBounded } from '../../process/concurrency.js';
import { RegistryError, type ListRequest, type RegistryProvider } from './provider.js';
import type { RemoteImage, RemoteRepository } from './types.js';

export interface CloudRegistryOptions {
  /** DescribeImages calls in flight at once for one registry. */
  concurrency?: number;
  /** Attempts per call, the SDK's own retries included (its standard mode backs off on throttling). */
  maxAttempts?: number;
}

/** The session name CloudTrail shows for the assumed role. */
export const ROLE_SESSION_NAME = 'den-registry-sync';
const PAGE_SIZE = 1000;

interface AwsError {
  name?: string;
  code?: string;
  message?: string;
  hostname?: string;
  $metadata?: { httpStatusCode?: number };
}

const ACCESS_DENIED = new Set(['AccessDeniedException', 'AccessDenied', 'UnrecognizedClientException', 'InvalidClientTokenId', 'InvalidSignatureException', 'SignatureDoesNotMatch']);
const EXPIRED = new Set(['ExpiredTokenException', 'ExpiredToken', 'RequestExpired', 'TokenRefreshRequired']);
const THROTTLED = new Set(['ThrottlingException', 'Throttling', 'TooManyRequestsException', 'RequestLimitExceeded']);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE']);

/** The SDK's error as a reason people understand; the message keeps the service's words, never a credential. */
export function classifyAwsError(err: unknown, region: string): RegistryError {
  if (err instanceof RegistryError) return err;
  const e = (err ?? {}) as AwsError;
  const name = e.name ?? '';
  const message = e.message ?? String(err);
  const cause = { cause: err };
  if (name === 'AbortError' || name === 'TimeoutError') return new RegistryError('TimedOut', 'the listing took too long and was abandoned', cause);
  if (THROTTLED.has(name) || e.$metadata?.httpStatusCode === 429) return new RegistryError('Throttled', `the registry throttled the listing: ${message}`, cause);
  if (EXPIRED.has(name)) return new RegistryError('ExpiredCredentials', `the credentials have expired: ${message}`, cause);
  if (ACCESS_DENIED.has(name)) return new RegistryError('AccessDenied', `access denied: ${message}`, cause);
  if (name === 'CredentialsProviderError') return new RegistryError('NoCredentials', `no credentials: ${message}`, cause);
  if (/invalid region|region not accepted/i.test(message)) return new RegistryError('UnknownRegion', `region '${region}' is not valid: ${message}`, cause);
  if (e.code === 'ENOTFOUND') {
    if (e.hostname?.includes(`.${region}.`)) return new RegistryError('UnknownRegion', `no registry endpoint for region '${region}' (${e.hostname} does not resolve)`, cause);
    return new RegistryError('Unreachable', `the registry endpoint ${e.hostname ?? ''} does not resolve`, cause);
  }
  if (e.code && NETWORK.has(e.code)) return new RegistryError('Unreachable', `the registry endpoint cannot be reached (${e.code})`, cause);
  return new RegistryError('ListingFailed', `${name || 'error'}: ${message}`, cause);
}

function imagesOf(details: { imageTags?: string[]; imagePushedAt?: Date; imageDigest?: string }[]): RemoteImage[] {
  return details
    .filter((d) => (d.imageTags?.length ?? 0) > 0)
    .map((d) => ({ tags: [...d.imageTags!], pushedAt: d.imagePushedAt?.getTime() ?? 0, ...(d.imageDigest ? { digest: d.imageDigest } : {}) }));
}

export function cloudRegistryProvider(options: CloudRegistryOptions = {}): RegistryProvider {
  const concurrency = options.concurrency ?? 8;
  return {
    async list({ spec, wantsRepository, signal }: ListRequest) {
      const region = spec.cloud?.region ?? '';
      if (!spec.cloud || !region) throw new RegistryError('InvalidSpec', 'spec.cloud.region is required for provider cloud-registry');
      const [{ ECRClient, paginateDescribeImages, paginateDescribeRepositories }, { fromTemporaryCredentials }] = await Promise.all([
        import('@aws-sdk/client-ecr'),
        import('@aws-sdk/credential-providers'),
      ]);
      const registryId = spec.cloud.registryId || undefined;
      const roleArn = spec.cloud.roleArn || undefined;
      const credentials = roleArn
        ? fromTemporaryCredentials({ params: { RoleArn: roleArn, RoleSessionName: ROLE_SESSION_NAME }, clientConfig: { region } })
        : undefined;
      const client = new ECRClient({ region, credentials, maxAttempts: options.maxAttempts });
      const send = { abortSignal: signal };
      try {
        const repositories: Repository[] = [];
        for await (const page of paginateDescribeRepositories({ client, pageSize: PAGE_SIZE }, { registryId }, send)) {
          repositories.push(...(page.repositories ?? []));
        }
        const wanted = repositories.filter((r) => r.repositoryName && wantsRepository(r.repositoryName));
        const listed = await mapBounded(wanted, concurrency, async (repo): Promise<RemoteRepository | undefined> => {
          const name = repo.repositoryName!;
          const details = [];
          try {
            const input = { registryId: repo.registryId ?? registryId, repositoryName: name, filter: { tagStatus: 'TAGGED' as const } };
            for await (const page of paginateDescribeImages({ client, pageSize: PAGE_SIZE }, input, send)) details.push(...(page.imageDetails ?? []));
          } catch (err) {
            // Deleted between the two listings: it is gone, like its images.
            if ((err as AwsError).name === 'RepositoryNotFoundException') return undefined;
            throw err;
          }
          const uri = repo.repositoryUri ?? `${repo.registryId ?? registryId}.dkr.ecr.${region}.amazonaws.com/${name}`;
          return { name, uri, images: imagesOf(details) };
        });
        return { repositories: listed.filter((r): r is RemoteRepository => r !== undefined) };
      } catch (err) {
        throw classifyAwsError(err, region);
      } finally {
        client.destroy();
      }
    },
  };
}
