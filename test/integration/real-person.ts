// One person signed in to Den on the shared real API server, with a catalog image of their own:
// what the real-server tests of what the cluster decides start from.
import { expect } from 'chai';
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import { realClient } from '../support/real-kube/cluster.js';
import { addImage, addPerson, removePerson, uniqueName, type Person } from '../support/real-kube/people.js';
import { sharedRealKube, type SharedRealKube } from '../support/real-kube/shared.js';
import { Rest, type Session } from './rest.js';

export interface SignedInPerson {
  admin: KubeClient;
  rest: Rest;
  person: Person;
  session: Session;
}

export interface SignedInPeople {
  shared: SharedRealKube;
  admin: KubeClient;
  rest: Rest;
  /** One a stem, in the stems' order. */
  people: { person: Person; session: Session }[];
}

/** Adds the WorkspaceImage `image` and a new person named from each stem (`den users add --wait`), and signs them in. */
export async function signInNewPeople(stems: string[], image: string): Promise<SignedInPeople> {
  const shared = await sharedRealKube();
  const admin = realClient(shared.kube);
  const rest = new Rest(shared.den.baseUrl);
  await addImage(admin, image);
  const added = await Promise.all(stems.map((stem) => addPerson(shared.den.kubeconfig, uniqueName(stem))));
  const people = await Promise.all(added.map(async (person) => ({ person, session: await rest.login(person.name, person.password) })));
  return { shared, admin, rest, people };
}

/** Adds the WorkspaceImage `image` and a new person named from `stem` (`den users add --wait`), and signs them in. */
export async function signInNewPerson(stem: string, image: string): Promise<SignedInPerson> {
  const { admin, rest, people } = await signInNewPeople([stem], image);
  return { admin, rest, ...people[0]! };
}

/** Removes what signInNewPeople made; safe when it stopped part-way. */
export async function removeSignedInPeople(admin: KubeClient | undefined, people: (Person | undefined)[], image: string): Promise<void> {
  if (!admin) return;
  await Promise.all(people.filter((p): p is Person => p !== undefined).map((p) => removePerson(admin, p.name)));
  await admin.delete(RESOURCES.workspaceImage, image).catch(() => undefined);
}

/** Removes what signInNewPerson made; safe when it stopped part-way. */
export async function removeSignedInPerson(admin: KubeClient | undefined, person: Person | undefined, image: string): Promise<void> {
  await removeSignedInPeople(admin, [person], image);
}

/** The cluster's refusal of `call`; fails the test when the call went through. */
export async function refusal(call: Promise<unknown>): Promise<KubeApiError> {
  const err = await call.then(() => undefined, (e: unknown) => e);
  expect(err, 'the cluster refused').to.be.instanceOf(KubeApiError);
  return err as KubeApiError;
}
