// One person signed in to Den on the shared real API server, with a catalog image of their own:
// what the real-server tests of what the cluster decides start from.
import type { KubeClient } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { realClient } from '../support/real-kube/cluster.js';
import { addImage, addPerson, removePerson, uniqueName, type Person } from '../support/real-kube/people.js';
import { sharedRealKube } from '../support/real-kube/shared.js';
import { Rest, type Session } from './rest.js';

export interface SignedInPerson {
  admin: KubeClient;
  rest: Rest;
  person: Person;
  session: Session;
}

/** Adds the WorkspaceImage `image` and a new person named from `stem` (`den users add --wait`), and signs them in. */
export async function signInNewPerson(stem: string, image: string): Promise<SignedInPerson> {
  const shared = await sharedRealKube();
  const admin = realClient(shared.kube);
  const rest = new Rest(shared.den.baseUrl);
  await addImage(admin, image);
  const person = await addPerson(shared.den.kubeconfig, uniqueName(stem));
  return { admin, rest, person, session: await rest.login(person.name, person.password) };
}

/** Removes what signInNewPerson made; safe when it stopped part-way. */
export async function removeSignedInPerson(admin: KubeClient | undefined, person: Person | undefined, image: string): Promise<void> {
  if (!admin) return;
  if (person) await removePerson(admin, person.name);
  await admin.delete(RESOURCES.workspaceImage, image).catch(() => undefined);
}
