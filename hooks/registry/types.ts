// The ImageRegistry as the sync reads it (SPEC 2.3), and what a provider reports of a registry.
import type { KubeObject } from '../../kube/client.js';
import type { TagMode } from '../../contract/image-registry-rules.js';

export interface ImageRegistrySpec {
  provider?: string;
  cloud?: { region?: string; registryId?: string; roleArn?: string };
  sync?: {
    intervalSeconds?: number;
    include?: string[];
    exclude?: string[];
    tags?: { mode?: TagMode; patterns?: string[]; limit?: number };
    prune?: boolean;
  };
  imagePullSecretRef?: { name?: string };
}

export type ImageRegistry = KubeObject & { spec?: ImageRegistrySpec };

/** One image of a repository; only tagged images are reported. */
export interface RemoteImage {
  tags: string[];
  /** Milliseconds since the epoch. */
  pushedAt: number;
  digest?: string;
}

export interface RemoteRepository {
  name: string;
  /** Pullable reference without a tag: `<account>.dkr.ecr.<region>.amazonaws.com/<name>`. */
  uri: string;
  images: RemoteImage[];
}

/** The repositories a provider listed (only those the registry's patterns let through carry images). */
export interface RegistryListing {
  repositories: RemoteRepository[];
}
