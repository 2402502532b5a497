// What the journey's steps share (journey.ts): the names one run uses, and the state its
// `before` and its sign-in steps set.
import type { ResourceType } from '../../kube/resources.js';
import type { PlatformEnvironment } from '../support/platform.js';
import type { Rest, Session } from './rest.js';

export type Json = Record<string, any>;

/** The names one run uses; the suffix keeps runs on a shared cluster apart. */
export interface JourneyNames {
  admin: string;
  alice: string;
  bob: string;
  image: string;
  workspace: string;
  password: string;
}

export function journeyNames(suffix: string): JourneyNames {
  return {
    admin: `admin-${suffix}`,
    alice: `alice-${suffix}`,
    bob: `bob-${suffix}`,
    image: `ubuntu-${suffix}`,
    workspace: `dev-${suffix}`,
    password: `correct horse ${suffix} battery`,
  };
}

/** What the steps share: set by the journey's `before` and by the steps that sign people in. */
export interface JourneyState {
  env: PlatformEnvironment;
  names: JourneyNames;
  rest: Rest;
  aliceKey: { file: string; publicKey: string };
  otherKey: { file: string; publicKey: string };
  admin: Session;
  alice: Session;
  bob: Session;
  /** An object as the cluster holds it, read as the administrator of the cluster. */
  cluster<T = Json>(t: ResourceType, name: string, namespace?: string): Promise<T>;
  aliceNs(): string;
  /** Adds the processes' recent output to a failing assertion's message. */
  diagnose(step: () => Promise<void>): Promise<void>;
}

