// V8's heap limits for `den manager`'s container. Without them V8 sizes its old generation from
// the memory the machine has (4 GiB on a node of 16 GiB or more) and collects lazily below it:
// the convergence bench saw a manager with 11,000 parents cached peak at 550 MiB, above the
// container's default limit of 512Mi. docs/manager.md ("Memory") has the figures behind these numbers.
import { parseQuantity } from '../../kube/quantity.js';

/**
 * The old generation may take this share of the container's memory limit: 128 MiB at the
 * default 512Mi, 1.8 times the 71 MiB a manager with 11,000 parents and their 34,000 children
 * cached keeps after a full collection; the rest of the limit is Node's own (about 80 MiB
 * outside the heap), the young generation and the garbage of a start.
 */
export const OLD_SPACE_SHARE = 0.25;

/** Never below this many MiB, whatever the limit: the idle manager's heap is about 45 MiB. */
export const MIN_OLD_SPACE_MIB = 96;

/**
 * MiB of each of the young generation's semi-spaces (V8's default is 16 with a heap this
 * size): the start-up's garbage dies young, and a smaller nursery is collected before it
 * grows, at no cost to convergence in the bench.
 */
export const SEMI_SPACE_MIB = 2;

/** NODE_OPTIONS for a container with this memory limit (a Kubernetes quantity). */
export function managerNodeOptions(memoryLimit: string): string {
  const { num, den } = parseQuantity(memoryLimit);
  const limitMiB = Number(num / den / (1n << 20n));
  const oldSpaceMiB = Math.max(MIN_OLD_SPACE_MIB, Math.floor(limitMiB * OLD_SPACE_SHARE));
  return `--max-old-space-size=${oldSpaceMiB} --max-semi-space-size=${SEMI_SPACE_MIB}`;
}
