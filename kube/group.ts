// Names shared by every role: the API group, its labels and annotations, and the
// namespaces the spec fixes. Changing one of these changes the public API.

export const GROUP = 'den.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const KINDS = {
  workspace: 'Workspace',
  workspaceImage: 'WorkspaceImage',
  userSpace: 'UserSpace',
  imageRegistry: 'ImageRegistry',
} as const;

export const PLURALS = {
  workspace: 'workspaces',
  workspaceImage: 'workspaceimages',
  userSpace: 'userspaces',
  imageRegistry: 'imageregistries',
} as const;

export const LABELS = {
  /** On the workspace pod: `den.dev/workspace=<workspace-name>` (SPEC 1.3, 1.5). */
  workspace: `${GROUP}/workspace`,
  /** On WorkspaceImages an ImageRegistry created (SPEC 1.1). */
  imageRegistry: `${GROUP}/image-registry`,
  /** Membership role on a UserSpace: `user` or `admin` (DESIGN.md). */
  role: `${GROUP}/role`,
  /** `"true"` on a disabled UserSpace (DESIGN.md). */
  disabled: `${GROUP}/disabled`,
  /** Pod label written from `spec.observability.metricsEnabled`. */
  metricsEnabled: `${GROUP}/metrics-enabled`,
  /** On Secrets in the manager's namespace that are mirrored into every user namespace (SPEC 1.2 rule 7). */
  pullSecret: `${GROUP}/pull-secret`,
  /** On every child of a UserSpace: `den.dev/userspace=<userspace-name>`. */
  userSpace: `${GROUP}/userspace`,
  /** `"true"` on the copies of pull Secrets in user namespaces (never on their sources). */
  pullSecretMirror: `${GROUP}/pull-secret-mirror`,
  /** Marks objects the platform manages, so they can be selected. */
  managedBy: 'app.kubernetes.io/managed-by',
} as const;

export const ANNOTATIONS = {
  /** Authenticated username of the creator, set by the mutating webhook. */
  requester: `${GROUP}/requester`,
  /** Bumped to request an immediate registry sync. */
  forceSync: `${GROUP}/force-sync`,
  /** Pod annotation written from `spec.observability.logsEnabled`. */
  logsEnabled: `${GROUP}/logs-enabled`,
  /** On a Workspace the manager stopped: who stopped it (`idle`). */
  stoppedBy: `${GROUP}/stopped-by`,
  /** On a Workspace with spec.schedule: the occurrence of its autostart the manager handled last (RFC 3339). */
  scheduleAutostart: `${GROUP}/schedule-autostart`,
  /** The same for its autostop. */
  scheduleAutostop: `${GROUP}/schedule-autostop`,
} as const;

/** While a session to a workspace is open, its status.lastActivityTime is refreshed this often (shell/activity.ts). */
export const ACTIVITY_REFRESH_MS = 5 * 60_000;

export const FIELD_MANAGERS = {
  manager: 'den-manager',
  server: 'den-server',
  gateway: 'den-gateway',
} as const;

/** Namespace of the platform's own processes and state. */
export const SYSTEM_NAMESPACE = 'svc-system';

/** Namespaces the admission webhooks never look at (SPEC 1.4). */
export const WEBHOOK_EXCLUDED_NAMESPACES = [SYSTEM_NAMESPACE, 'kube-system'] as const;

/** The namespace a UserSpace provisions (SPEC 1.1). */
export function userNamespace(userSpaceName: string): string {
  return `svc-${userSpaceName}`;
}

/** The UserSpace a user namespace belongs to, or undefined for any other namespace. */
export function userSpaceOfNamespace(namespace: string): string | undefined {
  if (!namespace.startsWith('svc-') || namespace === SYSTEM_NAMESPACE) return undefined;
  return namespace.slice('svc-'.length) || undefined;
}

/** The retained home PVC of a workspace (SPEC 2.5). */
export function homeClaimName(workspaceName: string): string {
  return `home-${workspaceName}-0`;
}

/** Default pod of a workspace when `status.podName` is unset (SPEC 1.5). */
export function defaultPodName(workspaceName: string): string {
  return `${workspaceName}-0`;
}

export const SERVICE_ACCOUNTS = {
  workspace: 'workspace',
  session: 'session',
  sessionReadonly: 'session-readonly',
} as const;

export const DEFAULT_GPU_RESOURCE = 'nvidia.com/gpu';
