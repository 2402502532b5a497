// What the Workspace child constructs render from: plain, already decided values. The hook
// resolves image defaults, placement and validation; the constructs only draw.
import type {
  V1Affinity,
  V1EnvFromSource,
  V1EnvVar,
  V1Toleration,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import type { ObjectMeta } from '../../../imports/k8s.cjs';
import { FIELD_MANAGERS, LABELS } from '../../../kube/group.js';
import type { PullPolicy, QuantityJson, ResourceRequirementsJson } from '../../../contract/schema.js';

export interface WorkspaceChildrenProps {
  /** The Workspace's metadata.name: names the Service, the StatefulSet and the pod label. */
  workspace: string;
  namespace: string;
  replicas: 0 | 1;
  image: string;
  imagePullPolicy: PullPolicy;
  command: string[];
  /** Working directory and mount path of the home volume. */
  homePath: string;
  shell: string;
  runAsUser: number;
  allowRoot: boolean;
  /** spec.storage, already checked to be a quantity. */
  storage: string;
  nodeSelector?: Record<string, string>;
  // The standard objects below are the person's (or the catalog's) JSON, copied verbatim.
  env: V1EnvVar[];
  envFrom: V1EnvFromSource[];
  resources?: ResourceRequirementsJson;
  volumes: V1Volume[];
  volumeMounts: V1VolumeMount[];
  tolerations?: V1Toleration[];
  affinity?: V1Affinity;
  /** Name of the image's pull Secret, mirrored into the namespace by the UserSpace hook. */
  imagePullSecret?: string;
  logsEnabled: boolean;
  metricsEnabled: boolean;
  /** spec.source.git, already checked, with where it lands. */
  source?: CloneProps;
  /**
   * Den's own image (`den clone-source`, so the workspace image needs no git), which runs the
   * clone step in every workspace pod (the person's dotfiles), with or without spec.source; its
   * pull Secrets (`--clone-image-pull-secrets`) are copied into the namespace by the UserSpace hook.
   */
  cloneImage?: { image: string; imagePullPolicy: PullPolicy; imagePullSecrets: string[] };
  /** The once-only steps (devcontainer.json's onCreate/postCreate, the user check, the dotfiles) run by the `lifecycle` init container in the workspace image. */
  lifecycle?: LifecycleProps;
  /** devcontainer.json's postStartCommand, run in the background by the workspace container's command on every start. */
  postStart?: { folder: string; command: string };
  /** A digest of what devcontainer.json or the dotfiles changed in the pod: the pod template's den.dev/devcontainer-applied annotation. */
  appliedDigest?: string;
}

export interface LifecycleProps {
  /** Where the commands start (devcontainer.json's workspaceFolder). */
  folder: string;
  onCreate?: string;
  postCreate?: string;
  /** `containerUser=vscode`, `remoteUser=vscode`: names checked in the image's /etc/passwd. */
  users: string[];
  /** `script:install.sh` runs ~/.dotfiles/install.sh; `link` links its dot files into the home. */
  dotfiles?: string;
}

export interface CloneProps {
  url: string;
  ref?: string;
  /** Relative to the home. */
  directory: string;
  /** spec.source.devcontainer: which devcontainer.json applies. */
  devcontainer?: string;
}

/** Selects the workspace's pod: the Service and the StatefulSet select on exactly this. */
export function podSelector(props: Pick<WorkspaceChildrenProps, 'workspace'>): Record<string, string> {
  return { [LABELS.workspace]: props.workspace };
}

export function childMetadata(props: Pick<WorkspaceChildrenProps, 'workspace' | 'namespace'>): ObjectMeta {
  return {
    name: props.workspace,
    namespace: props.namespace,
    labels: { ...podSelector(props), [LABELS.managedBy]: FIELD_MANAGERS.manager },
  };
}
