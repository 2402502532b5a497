// The rules a Workspace must satisfy beyond what its CRD schema can say (SPEC 1.4, 2.2, 2.5),
// as pure functions returning violations. The admission webhook turns them into a denial
// (hooks/admission/validate-workspace.ts); the Workspace hook turns the first into the
// SpecProblem that stops rendering (hooks/workspace/desired.ts), for objects admitted before
// a rule existed or while the webhook was away.
import { posix } from 'node:path';
import { dns1035LabelProblems } from '../kube/names.js';
import { HOME_VOLUME } from './workspace.js';
import { GIT_CREDENTIALS_DIR, GIT_CREDENTIALS_VOLUME } from './personal.js';
import type { Workspace } from './workspace.js';
import { WORKSPACE_IMAGE_DEFAULTS } from './workspace-image.js';

export type WorkspaceRuleId = 'workspace-name' | 'home-volume' | 'volume-mount' | 'image-root';

/** Which check of a rule refused, so each reader can word the refusal for its own audience. */
export type WorkspaceCheck =
  | 'name-too-long'
  | 'name-not-a-service-name'
  | 'volumes-not-a-list'
  | 'mounts-not-a-list'
  | 'volume-unnamed'
  | 'volume-named-home'
  | 'volume-named-den'
  | 'mount-at-den'
  | 'volume-name-twice'
  | 'mount-unresolved'
  | 'mount-not-absolute'
  | 'mount-hides-home'
  | 'mount-twice'
  | 'image-runs-as-root';

export interface WorkspaceViolation {
  rule: WorkspaceRuleId;
  check: WorkspaceCheck;
  /** Path of the offending field (`spec.volumeMounts[0].mountPath`). */
  field: string;
  /** What is wrong, with the values involved; read by a person after the field name. */
  message: string;
  /** Position in spec.volumes or spec.volumeMounts, for a check of one entry. */
  index?: number;
  /** The same in the words of the person who asked, saying what to do (the webhook carries it to the pages). */
  advice: string;
}


/** The fields of a WorkspaceImage these rules read. */
export interface ImageFacts {
  homePath?: string;
  runAsUser?: number;
  allowRoot?: boolean;
}

/**
 * The longest Workspace name its children can carry: the StatefulSet's pods are labelled
 * `controller-revision-hash: <name>-<10 characters>`, a label value of at most 63 characters.
 */
export const WORKSPACE_NAME_MAX = 52;

const NAME_ADVICE = `A workspace name is also your SSH user name: use lower-case letters, digits and "-", start with a letter, end with a letter or digit, at most ${WORKSPACE_NAME_MAX} characters (such as dev or api-2).`;

const VOLUMES_ADVICE = 'Extra volumes and their mounts are lists (as in a pod spec): write each as an item of its list.';

/**
 * A name kube-apiserver would refuse for the Workspace's children: the Service of the same name
 * must be a DNS-1035 label (a letter first, no dots), and the name must fit WORKSPACE_NAME_MAX.
 */
export function nameViolations(name: string): WorkspaceViolation[] {
  const violations: WorkspaceViolation[] = [];
  const field = 'metadata.name';
  if (name.length > WORKSPACE_NAME_MAX) {
    violations.push({ rule: 'workspace-name', check: 'name-too-long', field, message: `must be no more than ${WORKSPACE_NAME_MAX} characters (the pods of its StatefulSet carry a label of the name and 11 more characters)`, advice: NAME_ADVICE });
  }
  for (const problem of dns1035LabelProblems(name).filter((p) => !p.startsWith('must be no more than'))) {
    violations.push({ rule: 'workspace-name', check: 'name-not-a-service-name', field, message: `${problem}: it names the workspace's Service`, advice: NAME_ADVICE });
  }
  return violations;
}

/** SPEC 2.5: `spec.running` defaults to true. */
export function isRunning(workspace: Pick<Workspace, 'spec'>): boolean {
  return workspace.spec?.running !== false;
}

/** Where the home volume is mounted: the image's homePath, else the CRD default. */
export function homePathOf(image: ImageFacts | undefined): string {
  return image?.homePath || WORKSPACE_IMAGE_DEFAULTS.homePath;
}

function normalizePath(p: string): string {
  const n = posix.normalize(p);
  return n.length > 1 ? n.replace(/\/+$/, '') : n;
}

/**
 * A mount at the home path, or at any directory above it (`/home`, `/`), would hide the home
 * volume: the container would start with an empty or foreign home directory.
 */
function shadowsHome(mountPath: string, homePath: string): boolean {
  const mount = normalizePath(mountPath);
  const home = normalizePath(homePath);
  return mount === home || mount === '/' || home.startsWith(`${mount}/`);
}

/** SPEC 1.4: extra volumes must not shadow the home volume, and every mount must resolve. */
export function volumeViolations(volumes: unknown, mounts: unknown, homePath: string): WorkspaceViolation[] {
  const violations: WorkspaceViolation[] = [];
  const names = new Set<string>();
  const volumeList = Array.isArray(volumes) ? (volumes as { name?: unknown }[]) : [];
  const mountList = Array.isArray(mounts) ? (mounts as { name?: unknown; mountPath?: unknown }[]) : [];
  if (volumes !== undefined && volumes !== null && !Array.isArray(volumes)) {
    violations.push({ rule: 'volume-mount', check: 'volumes-not-a-list', field: 'spec.volumes', message: 'must be a list of volumes', advice: VOLUMES_ADVICE });
  }
  if (mounts !== undefined && mounts !== null && !Array.isArray(mounts)) {
    violations.push({ rule: 'volume-mount', check: 'mounts-not-a-list', field: 'spec.volumeMounts', message: 'must be a list of volume mounts', advice: VOLUMES_ADVICE });
  }
  volumeList.forEach((volume, index) => {
    const name = volume?.name;
    const field = `spec.volumes[${index}].name`;
    if (typeof name !== 'string' || name === '') {
      violations.push({ rule: 'volume-mount', check: 'volume-unnamed', field, index, message: 'a volume needs a name', advice: 'Give each extra volume a name, and mount it by that name.' });
    } else if (name === HOME_VOLUME) {
      violations.push({ rule: 'home-volume', check: 'volume-named-home', field, index, message: `"${HOME_VOLUME}" is the name of the home volume Den mounts at ${homePath}; choose another name`, advice: `"${HOME_VOLUME}" is the name of your home volume: give this extra volume another name.` });
    } else if (name === GIT_CREDENTIALS_VOLUME) {
      violations.push({ rule: 'volume-mount', check: 'volume-named-den', field, index, message: `"${GIT_CREDENTIALS_VOLUME}" is the name of the volume Den mounts your git credentials from; choose another name`, advice: `"${GIT_CREDENTIALS_VOLUME}" is the name Den gives the volume of your git credentials: give this extra volume another name.` });
    } else if (names.has(name)) {
      violations.push({ rule: 'volume-mount', check: 'volume-name-twice', field, index, message: `volume name "${name}" is used twice`, advice: `Two extra volumes are named ${name}: give each its own name.` });
    } else {
      names.add(name);
    }
  });
  const paths = new Set<string>();
  mountList.forEach((mount, index) => {
    const field = `spec.volumeMounts[${index}]`;
    const name = mount?.name;
    if (typeof name !== 'string' || !names.has(name)) {
      const known = names.size ? `volumes: ${[...names].join(', ')}` : 'spec.volumes is empty';
      violations.push({ rule: 'volume-mount', check: 'mount-unresolved', field: `${field}.name`, index, message: `mount does not resolve: no volume named "${String(name ?? '')}" in spec.volumes (${known})`, advice: `This mount names a volume the workspace does not have (${known}): add the volume, or mount one it has.` });
    }
    const mountPath = mount?.mountPath;
    if (typeof mountPath !== 'string' || !mountPath.startsWith('/')) {
      violations.push({ rule: 'volume-mount', check: 'mount-not-absolute', field: `${field}.mountPath`, index, message: `must be an absolute path (got "${String(mountPath ?? '')}")`, advice: 'Mount a volume at a full path starting with /, such as /data.' });
      return;
    }
    if (shadowsHome(mountPath, homePath)) {
      violations.push({ rule: 'home-volume', check: 'mount-hides-home', field: `${field}.mountPath`, index, message: `"${mountPath}" would hide the home volume mounted at ${homePath}; mount somewhere else (inside ${homePath} is fine)`, advice: `Mounting at ${mountPath} would hide your home folder ${homePath}: mount it elsewhere, such as /data or a folder inside ${homePath}.` });
    }
    const normalized = normalizePath(mountPath);
    if (normalized === GIT_CREDENTIALS_DIR) {
      violations.push({ rule: 'volume-mount', check: 'mount-at-den', field: `${field}.mountPath`, index, message: `"${mountPath}" is where Den mounts your git credentials; mount somewhere else`, advice: `Den mounts your git credentials at ${GIT_CREDENTIALS_DIR}: mount this volume elsewhere.` });
    }
    if (paths.has(normalized)) {
      violations.push({ rule: 'volume-mount', check: 'mount-twice', field: `${field}.mountPath`, index, message: `"${mountPath}" is mounted twice`, advice: `Two volumes are mounted at ${mountPath}: give each its own path.` });
    }
    paths.add(normalized);
  });
  return violations;
}

/** SPEC 2.2: the Workspace has no uid of its own; it runs as the image's runAsUser, uid 0 only where an administrator allowed it. */
export function imageRootViolations(imageName: string, image: ImageFacts): WorkspaceViolation[] {
  if ((image.runAsUser ?? WORKSPACE_IMAGE_DEFAULTS.runAsUser) !== 0 || image.allowRoot === true) return [];
  return [{
    rule: 'image-root',
    check: 'image-runs-as-root',
    field: 'spec.imageRef.name',
    message: `WorkspaceImage "${imageName}" runs as uid 0 (spec.runAsUser: 0) but does not set spec.allowRoot; only an entry an administrator marked allowRoot may run as root`,
    advice: `The catalog entry ${imageName} would run as root, which an administrator has not allowed for it: choose another image, or ask an administrator to check the entry.`,
  }];
}
