// The validating webhook on Workspace CREATE and UPDATE (SPEC 1.4, 2.5, 7), as one pure
// decision over the reviewed object and a snapshot of what the caches hold.
//
// On UPDATE a rule is checked only when the fields it reads changed (and quota only where
// the workspace grows), so that a workspace admitted under yesterday's catalog or quota can
// still be stopped, and its finalizer removed, today.
import { isDeepStrictEqual } from 'node:util';
import { homePathOf, imageRootViolations, isRunning, nameViolations, volumeViolations } from '../../contract/workspace-rules.js';
import { sourceViolations } from '../../contract/workspace-source.js';
import { sharedPortsViolations } from '../../contract/port-share.js';
import { scheduleViolations } from '../../contract/schedule.js';
import { compareQuantities, formatQuantity, tryParseQuantity } from '../../kube/quantity.js';
import { DIRECT, type DecisionMemo } from './memo.js';
import type { PersistentVolumeClaim, UserSpace, Workspace, WorkspaceImage } from './objects.js';
import { checkRequestsAndLimits, parseResources } from './workspace-resources.js';
import { authorizedKeysViolations } from './authorized-keys.js';
import { checkQuota } from './workspace-quota.js';
import type { Violation } from './violations.js';

export interface WorkspaceValidationInput {
  operation: 'CREATE' | 'UPDATE';
  namespace: string;
  object: Workspace;
  oldObject?: Workspace;
  /** The WorkspaceImage named by `spec.imageRef.name`, when it exists. */
  image: WorkspaceImage | undefined;
  /** The UserSpace whose namespace is the request's namespace, when it exists. */
  userSpace: UserSpace | undefined;
  /** Every Workspace in the namespace, the reviewed one included when it is stored already. */
  workspaces: Workspace[];
  /** Every PVC in the namespace. */
  claims: PersistentVolumeClaim[];
  gpuResource: string;
  now: Date;
  /** Remembered key checks and parsed resources; the direct computations when absent. */
  memo?: DecisionMemo;
}

export function validateWorkspace(input: WorkspaceValidationInput): Violation[] {
  const { operation, object, oldObject, image } = input;
  const create = operation === 'CREATE';
  // An object on its way out only loses finalizers; refusing that would leave it stuck.
  if (!create && object.metadata?.deletionTimestamp) return [];
  const changed = (read: (ws: Workspace) => unknown) => create || !oldObject || !isDeepStrictEqual(read(object), read(oldObject));
  const spec = object.spec ?? {};
  const name = object.metadata?.name ?? '';
  const violations: Violation[] = [];

  if (create) violations.push(...nameViolations(name));
  if (create && name && input.workspaces.some((ws) => ws.metadata?.name === name)) {
    violations.push({
      rule: 'unique-name',
      field: 'metadata.name',
      message: `a Workspace named "${name}" already exists in namespace ${input.namespace}`,
      advice: `You already have a workspace named ${name}: pick another name, or open that one from the dashboard.`,
    });
  }

  const imageName = spec.imageRef?.name;
  const imageChanged = changed((ws) => ws.spec?.imageRef?.name);
  if (imageChanged) violations.push(...checkImage(imageName, image, input.now));

  if (imageChanged || changed((ws) => [ws.spec?.volumes, ws.spec?.volumeMounts])) {
    violations.push(...volumeViolations(spec.volumes, spec.volumeMounts, homePathOf(image?.spec)));
  }

  if (changed((ws) => ws.spec?.source)) {
    violations.push(...sourceViolations(spec.source).map((v) => ({ rule: 'source' as const, ...v })));
  }

  if (changed((ws) => ws.spec?.sharedPorts)) {
    violations.push(...sharedPortsViolations(spec.sharedPorts).map((v) => ({ rule: 'shared-ports' as const, ...v })));
  }

  // A lowered limit leaves a stored schedule alone until the person changes it.
  if (changed((ws) => ws.spec?.schedule)) {
    violations.push(...scheduleViolations(spec.schedule, input.userSpace?.spec?.schedules).map((v) => ({ rule: 'schedule' as const, ...v })));
  }

  const memo = input.memo ?? DIRECT;
  violations.push(...checkKeys(object, oldObject, memo));
  violations.push(...checkStorage(object, oldObject));

  const resourceViolations: Violation[] = [];
  const parsed = parseResources(spec.resources, resourceViolations);
  if (changed((ws) => ws.spec?.resources)) {
    resourceViolations.push(...checkRequestsAndLimits(parsed));
    violations.push(...resourceViolations);
  }

  const userSpace = input.userSpace;
  if (!userSpace) {
    if (create) {
      violations.push({
        rule: 'namespace-owner',
        field: 'metadata.namespace',
        message: `namespace ${input.namespace} belongs to no UserSpace; a Workspace must be created in the svc-<userspace> namespace of its owner`,
        advice: `The namespace ${input.namespace} is nobody's space: create the workspace in your own space (Den's pages and REST do), or ask an administrator to give you one.`,
      });
    }
    return violations;
  }
  if (violations.length > 0 || resourceViolations.length > 0) return violations;
  const others = input.workspaces.filter((ws) => ws.metadata?.name !== name);
  return checkQuota({ operation, workspace: object, parsed, oldWorkspace: oldObject, userSpace, others, claims: input.claims, gpuResource: input.gpuResource, memo });
}

function checkImage(imageName: string | undefined, image: WorkspaceImage | undefined, now: Date): Violation[] {
  const field = 'spec.imageRef.name';
  if (typeof imageName !== 'string' || imageName === '') return [{ rule: 'image-exists', field, message: 'must name a WorkspaceImage', advice: 'Choose an image from the catalog.' }];
  if (!image) {
    return [{ rule: 'image-exists', field, message: `WorkspaceImage "${imageName}" does not exist`, advice: `There is no catalog entry named ${imageName} (it may have been removed): choose another image from the catalog.` }];
  }
  const withdrawn = `The catalog entry ${imageName} is withdrawn: it is no longer offered for a new workspace or a change of image. Choose another image from the catalog.`;
  const violations: Violation[] = [];
  if (image.spec?.deprecated === true) {
    violations.push({ rule: 'image-on-offer', field, message: `WorkspaceImage "${imageName}" is deprecated and no longer offered for new workspaces`, advice: withdrawn });
  } else if (image.spec?.deprecateAt) {
    const at = Date.parse(image.spec.deprecateAt);
    if (!Number.isNaN(at) && now.getTime() >= at) {
      violations.push({
        rule: 'image-on-offer',
        field,
        message: `WorkspaceImage "${imageName}" was withdrawn at ${image.spec.deprecateAt} (spec.deprecateAt) and is no longer offered for new workspaces`,
        advice: withdrawn,
      });
    }
  }
  violations.push(...imageRootViolations(imageName, image.spec ?? {}));
  return violations;
}

function keysOf(ws: Workspace | undefined): unknown[] {
  const keys = ws?.spec?.sshAuthorizedKeys;
  return Array.isArray(keys) ? keys : [];
}

function checkKeys(object: Workspace, oldObject: Workspace | undefined, memo: DecisionMemo): Violation[] {
  const raw = object.spec?.sshAuthorizedKeys;
  const violations = authorizedKeysViolations(raw, oldObject?.spec?.sshAuthorizedKeys, (key) => memo.checkKey(key));
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) return violations;
  const keys = keysOf(object);
  const wasRunningWithoutKey = oldObject !== undefined && isRunning(oldObject) && keysOf(oldObject).length === 0;
  if (isRunning(object) && keys.length === 0 && !wasRunningWithoutKey) {
    violations.push({
      rule: 'running-needs-key',
      field: 'spec.sshAuthorizedKeys',
      message: 'a running workspace (spec.running: true, the default) needs at least one SSH key; add one here or to your UserSpace, or create it with spec.running: false',
      advice: 'A running workspace is reached with an SSH key, and none was given: paste your public key (the one line of ~/.ssh/id_ed25519.pub), or save one in your profile first.',
    });
  }
  return violations;
}

function checkStorage(object: Workspace, oldObject: Workspace | undefined): Violation[] {
  const raw = object.spec?.storage;
  const field = 'spec.storage';
  const storage = raw === undefined ? undefined : tryParseQuantity(raw);
  if (raw !== undefined && !storage) return [{ rule: 'quantity', field, message: `"${String(raw)}" is not a quantity (examples: 10Gi, 500Mi)`, advice: `"${String(raw)}" is not a size: write a number and a unit, such as 10Gi or 500Mi.` }];
  if (storage && storage.num <= 0n) return [{ rule: 'quantity', field, message: `must be positive (got ${String(raw)})`, advice: 'The home volume needs a size above zero, such as 10Gi.' }];
  const oldRaw = oldObject?.spec?.storage;
  if (oldRaw === undefined) return [];
  const old = tryParseQuantity(oldRaw);
  if (!storage || !old || compareQuantities(storage, old) !== 0) {
    return [{
      rule: 'storage-immutable',
      field,
      message: `is immutable once set: it was ${old ? formatQuantity(old) : String(oldRaw)}, the update asks for ${storage ? formatQuantity(storage) : 'none'}`,
      advice: `The home volume's size is fixed when the workspace is created (this one has ${old ? formatQuantity(old) : String(oldRaw)}): for another size, create a new workspace and copy your files over.`,
    }];
  }
  return [];
}
