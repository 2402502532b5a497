// The decision step of the Workspace hook: from the Workspace and its catalog entry to the
// values the child constructs draw, or the reason there is nothing to draw.
import { tryParseQuantity } from '../../kube/quantity.js';
import { WORKSPACE_IMAGE_DEFAULTS } from '../../contract/workspace-image.js';
import { homePathOf, imageRootViolations, isRunning, nameViolations, volumeViolations, type WorkspaceViolation } from '../../contract/workspace-rules.js';
import type { WorkspaceChildrenProps } from './children/props.js';
import { PULL_POLICIES, type PullPolicy, type QuantityJson, type ResourceRequirementsJson } from '../../contract/schema.js';
import { HOME_VOLUME } from '../../contract/workspace.js';
import type { Workspace, WorkspaceHookConfig, WorkspaceImage } from './types.js';
import { cloneDirectory, DEN_RELEASE_IMAGE, sourceViolations } from '../../contract/workspace-source.js';

/** Who clones when the manager was given no --clone-image: Den's release image. */
const DEFAULT_CLONE: NonNullable<WorkspaceHookConfig['clone']> = { image: DEN_RELEASE_IMAGE, imagePullPolicy: 'IfNotPresent' };

/** Why the hook renders no children; `image` is true when the catalog entry is at fault. */
export interface SpecProblem {
  reason: string;
  message: string;
  image: boolean;
}

export type Decision = { props: WorkspaceChildrenProps } | { problem: SpecProblem };


/** Reads one observability flag: anything but an explicit false is true (SPEC 2.5 default). */
function flag(value: unknown): boolean {
  return value !== false;
}

function stringMap(map: Record<string, QuantityJson> | undefined): Record<string, string> | undefined {
  return map && Object.fromEntries(Object.entries(map).map(([key, value]) => [key, String(value)]));
}

/**
 * The API server answers every quantity as a string; writing `cpu: 2` as `"2"` keeps the
 * applied object comparable with what is read back, so the loop sees no difference.
 */
function quantitiesAsStrings(resources: ResourceRequirementsJson): ResourceRequirementsJson {
  const { limits, requests, ...rest } = resources;
  return {
    ...rest,
    ...(limits === undefined ? {} : { limits: stringMap(limits) }),
    ...(requests === undefined ? {} : { requests: stringMap(requests) }),
  };
}

/** A rule of contract/workspace-rules.ts the Workspace breaks, worded for its status. */
function ruleProblem(violation: WorkspaceViolation, workspace: Workspace, entry: string, homePath: string): SpecProblem {
  const i = violation.index ?? 0;
  const mount = workspace.spec?.volumeMounts?.[i];
  const invalid = (message: string): SpecProblem => ({ reason: 'InvalidSpec', message, image: false });
  switch (violation.check) {
    case 'image-runs-as-root':
      return {
        reason: 'RootNotAllowed',
        message: `WorkspaceImage "${entry}" runs as uid 0 but does not set spec.allowRoot, so the pod would be refused. Ask an administrator to set a non-zero spec.runAsUser or allow root for this entry.`,
        image: true,
      };
    case 'volume-named-home':
      return invalid(`spec.volumes[${i}] is named "${HOME_VOLUME}", the name of the home volume. Recreate the workspace with another volume name.`);
    case 'mount-hides-home':
      return invalid(
        `spec.volumeMounts[${i}] mounts "${mount?.name}" at ${mount?.mountPath}, which is the home path of WorkspaceImage "${entry}" (${homePath}) or a directory above it, so the home volume would be hidden. Recreate the workspace with another mount path.`,
      );
    case 'name-too-long':
    case 'name-not-a-service-name':
      return invalid(`metadata.name "${workspace.metadata?.name ?? ''}" ${violation.message}, so its children cannot be created. Recreate the workspace under another name.`);
    case 'mount-unresolved':
      return invalid(`spec.volumeMounts[${i}] mounts "${mount?.name}", which is not one of spec.volumes. Recreate the workspace with the volume or without the mount.`);
    default:
      return invalid(`${violation.field}: ${violation.message}. Recreate the workspace with spec.volumes and spec.volumeMounts corrected.`);
  }
}

/**
 * The children's props for a Workspace whose WorkspaceImage exists, or the problem that stops
 * rendering. Nothing here reads anything but its arguments.
 */
export function decide(workspace: Workspace, image: WorkspaceImage, clone: WorkspaceHookConfig['clone'] = DEFAULT_CLONE): Decision {
  const name = workspace.metadata?.name ?? '';
  const spec = workspace.spec ?? {};
  const entry = image.metadata?.name ?? '';
  const img = image.spec ?? {};
  const problem = (reason: string, message: string, fromImage = false): Decision => ({
    problem: { reason, message, image: fromImage },
  });

  const [nameViolation] = nameViolations(name);
  if (nameViolation) return { problem: ruleProblem(nameViolation, workspace, entry, homePathOf(img)) };

  if (typeof img.image !== 'string' || img.image.trim() === '') {
    return problem(
      'ImageInvalid',
      `WorkspaceImage "${entry}" names no container image (spec.image is empty). Ask an administrator to set it.`,
      true,
    );
  }
  const pullPolicy = img.imagePullPolicy ?? WORKSPACE_IMAGE_DEFAULTS.imagePullPolicy;
  if (!(PULL_POLICIES as readonly string[]).includes(pullPolicy)) {
    return problem(
      'ImageInvalid',
      `WorkspaceImage "${entry}" has spec.imagePullPolicy "${pullPolicy}"; it must be Always, IfNotPresent or Never. Ask an administrator to fix it.`,
      true,
    );
  }
  const runAsUser = img.runAsUser ?? WORKSPACE_IMAGE_DEFAULTS.runAsUser;
  if (!Number.isSafeInteger(runAsUser) || runAsUser < 0) {
    return problem(
      'ImageInvalid',
      `WorkspaceImage "${entry}" has spec.runAsUser ${String(runAsUser)}; it must be a user id (an integer, 0 or more). Ask an administrator to fix it.`,
      true,
    );
  }
  const allowRoot = img.allowRoot === true;
  const [rootViolation] = imageRootViolations(entry, { runAsUser, allowRoot });
  if (rootViolation) return { problem: ruleProblem(rootViolation, workspace, entry, homePathOf(img)) };

  if (spec.storage === undefined || spec.storage === null || spec.storage === '') {
    return problem(
      'StorageUnset',
      'spec.storage is unset: the CRD default did not apply, so there is no size for the home volume. spec.storage is immutable; delete this workspace and create it again with a storage size.',
    );
  }
  const storage = String(spec.storage);
  if (tryParseQuantity(storage) === undefined) {
    return problem(
      'InvalidSpec',
      `spec.storage "${storage}" is not a quantity (for example 10Gi). Delete this workspace and create it again with a valid size.`,
    );
  }

  const homePath = homePathOf(img);
  const volumes = spec.volumes ?? [];
  const mounts = spec.volumeMounts ?? [];
  const [volumeViolation] = volumeViolations(spec.volumes, spec.volumeMounts, homePath);
  if (volumeViolation) return { problem: ruleProblem(volumeViolation, workspace, entry, homePath) };

  const [sourceViolation] = sourceViolations(spec.source);
  if (sourceViolation) {
    return problem('InvalidSpec', `${sourceViolation.field}: ${sourceViolation.message}. Change spec.source (or recreate the workspace) with a repository Den can clone.`);
  }
  const git = spec.source?.git;
  const choice = spec.source?.devcontainer;
  const source = git?.url
    ? { url: git.url, ...(git.ref ? { ref: git.ref } : {}), directory: cloneDirectory(git)!, ...(choice ? { devcontainer: choice } : {}) }
    : undefined;

  return {
    props: {
      workspace: name,
      namespace: workspace.metadata?.namespace ?? '',
      replicas: isRunning(workspace) ? 1 : 0,
      image: img.image,
      imagePullPolicy: pullPolicy,
      command: img.command && img.command.length > 0 ? [...img.command] : [...WORKSPACE_IMAGE_DEFAULTS.command],
      homePath,
      shell: img.shell || WORKSPACE_IMAGE_DEFAULTS.shell,
      runAsUser,
      allowRoot,
      storage,
      // The Workspace's placement replaces the image's field by field, never merged: a person
      // who names a nodeSelector gets exactly that one (SPEC 2.5).
      nodeSelector: spec.nodeSelector ?? img.placement?.nodeSelector,
      tolerations: spec.tolerations ?? img.placement?.tolerations,
      affinity: spec.affinity,
      env: spec.env ?? [],
      envFrom: spec.envFrom ?? [],
      resources: spec.resources && quantitiesAsStrings(spec.resources),
      volumes,
      volumeMounts: mounts,
      imagePullSecret: img.imagePullSecretRef?.name || undefined,
      logsEnabled: flag(spec.observability?.logsEnabled),
      metricsEnabled: flag(spec.observability?.metricsEnabled),
      ...(source ? { source } : {}),
      cloneImage: { image: clone.image, imagePullPolicy: clone.imagePullPolicy, imagePullSecrets: clone.imagePullSecrets ?? [] },
    },
  };
}
