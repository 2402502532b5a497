// People on the real API server as an administrator makes them (`den users add`: a UserSpace
// and a local user who signs in), their cluster identities, and their removal, for the
// real-server tests.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { KubeClient } from '../../../kube/client.js';
import { isNotFound } from '../../../kube/errors.js';
import { SYSTEM_NAMESPACE, userNamespace } from '../../../kube/group.js';
import { RESOURCES } from '../../../kube/resources.js';
import { localUserSecretName } from '../../../server/auth/local-users.js';
import { eventually, runDen } from '../platform.js';
import { realClient, type RealKubeAddress } from './cluster.js';

export interface Person {
  name: string;
  namespace: string;
  password: string;
}

/** A name no other test of the run uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/** `den users add <name>` with a cluster-admin kubeconfig; resolves once the UserSpace is Ready (as the command waits). */
export async function addPerson(kubeconfig: string, name: string, opts: { admin?: boolean } = {}): Promise<Person> {
  const password = `password of ${name}`;
  const args = ['users', 'add', name, '--owner', `${name}@example.com`, '--password-stdin', '--wait', '90s', '--kubeconfig', kubeconfig, ...(opts.admin ? ['--admin'] : [])];
  const added = await runDen(args, { stdin: `${password}\n`, timeoutMs: 120_000 });
  expect(added.code, `den ${args.join(' ')}: ${added.stdout}${added.stderr}`).to.equal(0);
  return { name, namespace: userNamespace(name), password };
}

/** The UserSpace deleted and waited out: its namespace (and everything in it) gone from the cluster. */
export async function deleteUserSpace(admin: KubeClient, name: string, timeoutMs = 90_000): Promise<void> {
  await admin.delete(RESOURCES.userSpace, name).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
  await eventually(async () => {
    const left = await Promise.all([admin.get(RESOURCES.userSpace, name).then(() => 'UserSpace', (err: unknown) => (isNotFound(err) ? '' : Promise.reject(err))), admin.get(RESOURCES.namespace, userNamespace(name)).then(() => 'Namespace', (err: unknown) => (isNotFound(err) ? '' : Promise.reject(err)))]);
    return left.every((l) => l === '');
  }, `UserSpace ${name} and namespace ${userNamespace(name)} gone`, timeoutMs, 250);
}

/** Everything `addPerson` made: the UserSpace (waited out) and the local user. */
export async function removePerson(admin: KubeClient, name: string): Promise<void> {
  await deleteUserSpace(admin, name);
  await admin.delete(RESOURCES.secret, localUserSecretName(name), SYSTEM_NAMESPACE).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
}

/** A token the cluster mints for the person's `session` ServiceAccount (TokenRequest, bound to its UID), as den server mints them. */
export async function mintSessionToken(kube: RealKubeAddress, person: Pick<Person, 'namespace'>, serviceAccount = 'session'): Promise<string> {
  const answer = await realClient(kube).request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${person.namespace}/serviceaccounts/${serviceAccount}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
  });
  return answer.status.token;
}

/** The cluster username of a person's `session` ServiceAccount, as RBAC refusals name it. */
export function sessionUser(person: Pick<Person, 'namespace'>): string {
  return `system:serviceaccount:${person.namespace}:session`;
}

/** A catalog entry everyone may use (no node pulls it: nothing runs pods here). */
export async function addImage(admin: KubeClient, name: string): Promise<void> {
  await admin.create(RESOURCES.workspaceImage, { apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name }, spec: { displayName: 'Ubuntu', image: 'docker.io/library/ubuntu:24.04' } });
}

/** The body of `POST /workspaces` the tests send: small, within the default quota. */
export function workspaceRequest(name: string, image: string, sshPublicKey: string, cpu = '500m'): Record<string, string> {
  return { name, image, cpu, memory: '512Mi', storage: '1Gi', ssh_public_key: sshPublicKey };
}
