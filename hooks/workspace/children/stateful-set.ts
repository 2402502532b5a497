// The one-replica StatefulSet `<workspace>` whose pod is the workspace (SPEC 1.3).
import { Construct } from 'constructs';
import { JsonPatch } from 'cdk8s';
import {
  KubeStatefulSet,
  Quantity,
  type KubeStatefulSetProps,
  type PodSecurityContext,
} from '../../../imports/k8s.cjs';
import { ANNOTATIONS, LABELS, SERVICE_ACCOUNTS } from '../../../kube/group.js';
import { HOME_VOLUME, WORKSPACE_CONTAINER } from '../../../contract/workspace.js';
import { GIT_CREDENTIALS_DIR, GIT_CREDENTIALS_SECRET, GIT_CREDENTIALS_VOLUME, PERSONAL_ENV_SECRET, gitConfigEnv } from '../../../contract/personal.js';
import {
  childMetadata,
  podSelector,
  type WorkspaceChildrenProps,
} from './props.js';
import { PRE_STOP, STOP_GRACE_SECONDS } from './stop.js';
import { cloneInitContainer } from './clone.js';
import { lifecycleInitContainer, workspaceCommand } from './lifecycle.js';
import { DEVCONTAINER_APPLIED_ANNOTATION } from '../../../contract/devcontainer.js';

/**
 * A KubeStatefulSet whose `verbatim` patches land after the typed rendering. The 1.28 classes
 * re-spell every nested object field by field: a plain string where a Quantity is expected
 * (emptyDir.sizeLimit) vanishes, JSON names differ from the property names (downwardAPI,
 * scaleIO, volumeID), and fields newer than 1.28 are dropped. The standard objects a person
 * writes into a Workspace are therefore copied as JSON, exactly as the CRD kept them.
 */
class StatefulSetWithVerbatimFields extends KubeStatefulSet {
  constructor(
    scope: Construct,
    id: string,
    props: KubeStatefulSetProps,
    private readonly verbatim: JsonPatch[],
    private readonly finish: (json: Record<string, unknown>) => Record<string, unknown> = (json) => json,
  ) {
    super(scope, id, props);
  }

  override toJson(): Record<string, unknown> {
    return this.finish(JsonPatch.apply(super.toJson(), ...this.verbatim));
  }
}

const POD = '/spec/template/spec';
const CONTAINER = `${POD}/containers/0`;

export class WorkspaceStatefulSet extends Construct {
  constructor(scope: Construct, id: string, props: WorkspaceChildrenProps) {
    super(scope, id);
    new StatefulSetWithVerbatimFields(
      this,
      'StatefulSet',
      {
        metadata: childMetadata(props),
        spec: {
          replicas: props.replicas,
          serviceName: props.workspace,
          // Parallel, because OrderedReady never replaces a pod that is not Ready: a pod stuck
          // in ImagePullBackOff would keep the old template after the image is fixed. The field
          // is immutable, and with one replica the policy changes nothing else.
          podManagementPolicy: 'Parallel',
          selector: { matchLabels: podSelector(props) },
          // No persistentVolumeClaimRetentionPolicy: the API default (Retain on scale-down and
          // on delete) is what SPEC 1.3 asks for, and the claim is never one of the hook's children.
          volumeClaimTemplates: [
            {
              metadata: { name: HOME_VOLUME, labels: podSelector(props) },
              spec: {
                accessModes: ['ReadWriteOnce'],
                resources: { requests: { storage: Quantity.fromString(props.storage) } },
              },
            },
          ],
          template: {
            metadata: {
              labels: { ...podSelector(props), [LABELS.metricsEnabled]: String(props.metricsEnabled) },
              annotations: {
                [ANNOTATIONS.logsEnabled]: String(props.logsEnabled),
                ...(props.appliedDigest ? { [DEVCONTAINER_APPLIED_ANNOTATION]: props.appliedDigest } : {}),
              },
            },
            spec: {
              serviceAccountName: SERVICE_ACCOUNTS.workspace,
              // Mounted on purpose: `workspace` holds `edit` in this namespace only (SPEC 1.2
              // rule 1), so kubectl works from inside the workspace.
              automountServiceAccountToken: true,
              // A namespace full of workspaces would otherwise fill every shell's environment
              // with variables for every Service in it.
              enableServiceLinks: false,
              securityContext: podSecurityContext(props),
              // A stopped workspace goes in seconds: preStop signals every process (stop.ts).
              terminationGracePeriodSeconds: STOP_GRACE_SECONDS,
              nodeSelector: props.nodeSelector,
              imagePullSecrets: podPullSecrets(props),
              containers: [
                {
                  name: WORKSPACE_CONTAINER,
                  image: props.image,
                  imagePullPolicy: props.imagePullPolicy,
                  command: workspaceCommand(props),
                  workingDir: props.homePath,
                  securityContext: { allowPrivilegeEscalation: false },
                  lifecycle: { preStop: PRE_STOP },
                },
              ],
            },
          },
        },
      },
      verbatimFields(props),
      (json) => withInitContainers(json, props),
    );
  }
}

/** The image's pull Secret, then those of Den's clone image (every pod runs the clone step); each once. */
function podPullSecrets(props: WorkspaceChildrenProps): { name: string }[] | undefined {
  const names = [...new Set([...(props.imagePullSecret ? [props.imagePullSecret] : []), ...(props.cloneImage?.imagePullSecrets ?? [])])];
  return names.length ? names.map((name) => ({ name })) : undefined;
}

function podSecurityContext(props: WorkspaceChildrenProps): PodSecurityContext {
  return {
    runAsUser: props.runAsUser,
    // The home volume becomes group-owned by this id, so it is writable whatever the image's
    // own /etc/group says.
    fsGroup: props.runAsUser,
    ...(props.allowRoot ? {} : { runAsNonRoot: true }),
  };
}

function verbatimFields(props: WorkspaceChildrenProps): JsonPatch[] {
  const patches = [
    JsonPatch.add(`${CONTAINER}/env`, containerEnv(props)),
    JsonPatch.add(`${CONTAINER}/volumeMounts`, [
      { name: HOME_VOLUME, mountPath: props.homePath },
      { name: GIT_CREDENTIALS_VOLUME, mountPath: GIT_CREDENTIALS_DIR, readOnly: true },
      ...props.volumeMounts,
    ]),
    // The person's own variables first: a later envFrom source and the container's env win over them.
    JsonPatch.add(`${CONTAINER}/envFrom`, [{ secretRef: { name: PERSONAL_ENV_SECRET, optional: true } }, ...props.envFrom]),
    JsonPatch.add(`${POD}/volumes`, [personalGitCredentials(), ...props.volumes]),
  ];
  if (props.resources !== undefined) patches.push(JsonPatch.add(`${CONTAINER}/resources`, props.resources));
  if (props.tolerations !== undefined) patches.push(JsonPatch.add(`${POD}/tolerations`, props.tolerations));
  if (props.affinity !== undefined) patches.push(JsonPatch.add(`${POD}/affinity`, props.affinity));
  return patches;
}

/** The clone step, then the once-only commands in the workspace image (a copy of the rendered workspace container). */
function withInitContainers(json: Record<string, unknown>, props: WorkspaceChildrenProps): Record<string, unknown> {
  const pod = (json.spec as { template: { spec: { containers: Record<string, unknown>[]; initContainers?: unknown[] } } }).template.spec;
  const initContainers = [cloneInitContainer(props), lifecycleInitContainer(props, pod.containers[0]!)].filter((c) => c !== undefined);
  if (initContainers.length > 0) pod.initContainers = initContainers;
  return json;
}

/**
 * HOME and SHELL point at the catalog entry's home path and shell, so tools keep their state
 * on the retained volume even when the uid has no passwd entry; the Workspace's own env wins.
 */
function containerEnv(props: WorkspaceChildrenProps): unknown[] {
  const own = new Set(props.env.map((e) => e.name));
  const defaults = [
    { name: 'HOME', value: props.homePath },
    { name: 'SHELL', value: props.shell },
    ...gitConfigEnv(),
  ].filter((e) => !own.has(e.name));
  return [...defaults, ...props.env];
}

/**
 * The person's git credentials file, read-only. The kubelet gives a Secret volume's files to
 * root with the pod's fsGroup (the workspace uid) as group and adds group read to the mode,
 * so the file is 0440: readable by the workspace's processes, writable by none.
 */
function personalGitCredentials(): unknown {
  return { name: GIT_CREDENTIALS_VOLUME, secret: { secretName: GIT_CREDENTIALS_SECRET, optional: true, defaultMode: 0o400 } };
}
