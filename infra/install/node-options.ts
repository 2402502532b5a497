// V8's heap settings for the containers of `den manager` and `den gateway`.
//
// The manager's heap limits (NODE_OPTIONS). Without them V8 sizes its old generation from
// the memory the machine has (4 GiB on a node of 16 GiB or more) and collects lazily below it:
// the convergence bench saw a manager with 11,000 parents cached peak at 550 MiB, above the
// container's default limit of 512Mi. docs/manager.md ("Memory") has the figures behind these numbers.
import { parseQuantity } from '../../kube/quantity.js';

/**
 * The old generation may take this share of the container's memory limit: 80 MiB at the
 * default 512Mi, 1.46 times the 55 MiB a manager with 11,000 parents and their 34,000 children
 * cached keeps after a full collection of a cold start (49 after a warm one); the rest of the
 * limit is Node's own (about 65 MiB outside the heap), the young generation and the garbage of a
 * start. The peak RSS follows this limit; at 72 the cold start ran out of heap (docs/manager.md,
 * "Fourth pass").
 */
export const OLD_SPACE_SHARE = 5 / 32;

/** Never below this many MiB, whatever the limit: the idle manager's heap is about 25 MiB. */
export const MIN_OLD_SPACE_MIB = 64;

/**
 * MiB of each of the young generation's semi-spaces (V8's default is 16 with a heap this
 * size): the start-up's garbage dies young, and a smaller nursery is collected before it
 * grows, at no cost to convergence in the bench.
 */
export const SEMI_SPACE_MIB = 2;

/** A memory quantity (`512Mi`, `1G`) in whole MiB. */
function mebibytesOf(memoryLimit: string): number {
  const { num, den } = parseQuantity(memoryLimit);
  return Number(num / den / (1n << 20n));
}

/**
 * glibc's malloc settings for the manager's and the server's containers, in their environment.
 * - `MALLOC_ARENA_MAX`: by default each thread that allocates (libuv's pool, V8's compiler and
 *   collector threads) may get an arena of its own and keep its freed pages; two cut the
 *   manager's peak RSS by 8 MiB in the convergence bench with 11,000 parents cached (188–191 to
 *   179–182), at no cost in time.
 * - `MALLOC_MMAP_THRESHOLD_` and `MALLOC_TRIM_THRESHOLD_` at glibc's own starting values (128 KiB):
 *   set, they stay there. Left alone, the first large block freed (a list page's body) raises
 *   both, up to 32 and 64 MiB, and from then on freed memory below that stays in the process.
 *   With 11,000 parents cached, warm: peak 153–157 to 149–154 MiB, after collection 134 to 129.
 *   The server with 1,000 people signed in (server-scale bench, all three settings): peak 189 to
 *   179 MiB (sign-in's scrypt takes 32 MiB per hash), after collection 115 to 105, idle 98 to 94.
 * The gateway has none: with them it held 5 MiB less with 1,000 open sessions (gateway-scale:
 * 143 to 138 after collection, 198 to 193 at the peak) but spent 2.5 ms of CPU per MiB relayed
 * instead of 2.2 (relay bench, 3 runs each, 2026-11-27), and its throughput is what counts.
 */
export const MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/**
 * V8 flags on `den manager`'s command line (Node refuses `--optimize-for-size` in NODE_OPTIONS).
 * `--no-maglev --no-opt`: no optimizing compiler, the interpreter and the baseline compiler
 * (Sparkplug) only. The manager mostly waits for the API server; the optimizing compilers'
 * work buffers and code cost it 13–18 MiB at its peak: with 11,000 parents cached, warm, 149–155
 * to 136–137 MiB, for 6.5 s instead of 5.4 and 11.0 CPU seconds instead of 10.4; 1,000
 * UserSpaces under the cluster's latencies converge in the same 83 s (docs/manager.md, "Fifth
 * pass").
 * `--optimize-for-size`: V8 grows and keeps less heap beyond what is live. The manager's peak RSS
 * with 1,000 UserSpaces and 2,000 Workspaces converging under the cluster's latencies fell from
 * 148–154 to 142 MiB, with 11,000 parents cached from 161–164 to 156–158 warm and from 158 to 155
 * cold, in the same time (docs/manager.md, "Fourth pass").
 */
export const MANAGER_NODE_FLAGS: readonly string[] = ['--optimize-for-size', '--no-maglev', '--no-opt'];

/** NODE_OPTIONS for a container with this memory limit (a Kubernetes quantity). */
export function managerNodeOptions(memoryLimit: string): string {
  const oldSpaceMiB = Math.max(MIN_OLD_SPACE_MIB, Math.floor(mebibytesOf(memoryLimit) * OLD_SPACE_SHARE));
  return `--max-old-space-size=${oldSpaceMiB} --max-semi-space-size=${SEMI_SPACE_MIB}`;
}

/**
 * MiB at which V8 first collects `den gateway`'s old generation, at most a quarter of its
 * container's memory limit. A relay allocates about three bytes outside the heap per byte
 * (a socket read, `ws` joining a frame, ssh2's packet), which V8 counts against this
 * threshold: with V8's default, sized for the gateway's heap of 13 MB, the relay ran a full
 * collection about every 9 MiB, with 64 about every 25, and the gateway's CPU per MiB relayed
 * fell by about a third. docs/gateway.md ("Throughput") has the figures and the memory it costs.
 */
export const GATEWAY_INITIAL_OLD_SPACE_MIB = 64;

/**
 * Node flags for `den gateway`'s container with this memory limit (a Kubernetes quantity).
 * Node refuses `--initial-old-space-size` in NODE_OPTIONS, and V8 reads it only when the
 * process starts, so these go on the container's command line.
 */
export function gatewayNodeFlags(memoryLimit: string): string[] {
  return [`--initial-old-space-size=${Math.max(1, Math.min(GATEWAY_INITIAL_OLD_SPACE_MIB, Math.floor(mebibytesOf(memoryLimit) / 4)))}`];
}
