// Names and labels of the objects the install chart creates (docs/contracts.md fixes them).
import { SYSTEM_NAMESPACE } from '../kube/group.js';

export const NAMESPACE = SYSTEM_NAMESPACE;

export type Component = 'manager' | 'server' | 'gateway';

/** ServiceAccount, Deployment and RBAC object names of each process. */
export const COMPONENT_NAMES: Record<Component, string> = {
  manager: 'den-manager',
  server: 'den-server',
  gateway: 'den-gateway',
};

export const ADMIN_CLUSTER_ROLE = 'den-admin';
export const WEBHOOK_CONFIGURATION = 'den-webhooks';
export const WEBHOOK_SERVICE = 'den-manager-webhook';
export const SERVER_SERVICE = 'den-server';
/** The Ingress of `*.<apps domain>` (host-based app previews). */
export const APPS_INGRESS = 'den-server-apps';
export const GATEWAY_SERVICE = 'den-gateway';
export const GATEWAY_HOST_KEY_SECRET = 'den-gateway-host-key';
export const GATEWAY_HOST_KEY_DIR = '/etc/den/ssh';
export const GATEWAY_HOST_KEY_FILE = 'ssh_host_ed25519_key';
/** Where the server finds the identity providers Secret's files. */
export const IDENTITY_PROVIDERS_DIR = '/etc/den/identity-providers';
/** Container ports: the Services and the NetworkPolicy name the same numbers. */
export const PORTS = { webhook: 9443, server: 8080, gateway: 2222 } as const;
/** Every process's plain-HTTP /healthz, /readyz and /metrics. */
export const HEALTH_PORT = 8081;
export const LEADER_LEASE = 'den-manager';
/** The manager's webhook CA and serving certificate (hooks/admission/tls-secret.ts). */
export const WEBHOOK_TLS_SECRET = 'den-webhook-tls';

/** The Roles in each user namespace: owner rights and read-only (SPEC 1.2 rules 2 and 3). */
export const USER_ROLE = 'svc-workspace-user';
export const READER_ROLE = 'svc-workspace-reader';

/** Built-in ClusterRole the manager binds `workspace` to in each user namespace (SPEC 1.2 rule 1). */
export const BUILT_IN_EDIT_ROLE = 'edit';

export const WEBHOOKS = {
  mutateWorkspace: { name: 'mworkspace.den.dev', path: '/mutate-workspace' },
  validateWorkspace: { name: 'vworkspace.den.dev', path: '/validate-workspace' },
  validateUserSpace: { name: 'vuserspace.den.dev', path: '/validate-userspace' },
  validateImageRegistry: { name: 'vimageregistry.den.dev', path: '/validate-imageregistry' },
  validateWorkspaceImage: { name: 'vworkspaceimage.den.dev', path: '/validate-workspaceimage' },
} as const;

export function commonLabels(): Record<string, string> {
  return { 'app.kubernetes.io/name': 'den', 'app.kubernetes.io/part-of': 'den' };
}

/** Selects the pods of one process; stable across upgrades because Deployment selectors are immutable. */
export function selectorLabels(component: Component): Record<string, string> {
  return { 'app.kubernetes.io/name': 'den', 'app.kubernetes.io/component': component };
}

/** Labels of a process's objects; an image without a tag gives no version label. */
export function componentLabels(component: Component, version: string | undefined): Record<string, string> {
  return { ...commonLabels(), ...selectorLabels(component), ...(version === undefined ? {} : { 'app.kubernetes.io/version': version }) };
}
