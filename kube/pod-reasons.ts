// The kubelet's waiting reasons after which a pod will not start without someone changing
// something, by what they point at. The controller words the Workspace's Failed condition from
// them (hooks/workspace/status.ts) and the web UI its one-sentence summary (server/pages/failure.ts).
export const STUCK_REASONS = {
  image: ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull', 'ImageInspectError'],
  config: ['CreateContainerConfigError'],
  runtime: ['CreateContainerError', 'RunContainerError', 'PreStartHookError', 'PostStartHookError'],
  crash: ['CrashLoopBackOff'],
} as const satisfies Record<string, readonly string[]>;

export type StuckKind = keyof typeof STUCK_REASONS;

export function stuckKindOf(reason: string): StuckKind | undefined {
  return (Object.keys(STUCK_REASONS) as StuckKind[]).find((kind) => (STUCK_REASONS[kind] as readonly string[]).includes(reason));
}
