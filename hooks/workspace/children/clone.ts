// The `clone` init container of a workspace with spec.source.git (issue 34): Den's own image
// runs `den clone-source` (source/command.ts) as the workspace's uid, against the home volume,
// before the workspace container starts. Its termination message is the status the Workspace
// hook reads (hooks/workspace/clone-status.ts).
import { CLONE_CONTAINER, CLONE_ENV, TERMINATION_LOG } from '../../../contract/workspace-source.js';
import { HOME_VOLUME } from '../../../contract/workspace.js';
import { GIT_CREDENTIALS_DIR, GIT_CREDENTIALS_VOLUME } from '../../../contract/personal.js';
import type { WorkspaceChildrenProps } from './props.js';

/** The init container as JSON, or undefined for a workspace with nothing to clone. */
export function cloneInitContainer(props: WorkspaceChildrenProps): Record<string, unknown> | undefined {
  const { source, cloneImage: runner } = props;
  if (!runner) return undefined;
  // Without spec.source the step only clones the person's dotfiles (when they keep a repository).
  const env = [
    ...(source
      ? [
          { name: CLONE_ENV.url, value: source.url },
          ...(source.ref ? [{ name: CLONE_ENV.ref, value: source.ref }] : []),
          { name: CLONE_ENV.directory, value: source.directory },
          ...(source.devcontainer ? [{ name: CLONE_ENV.devcontainer, value: source.devcontainer }] : []),
        ]
      : []),
    { name: CLONE_ENV.home, value: props.homePath },
  ];
  return {
    name: CLONE_CONTAINER,
    image: runner.image,
    imagePullPolicy: runner.imagePullPolicy,
    // The image's entrypoint is `node build/cli/den.js`.
    args: ['clone-source'],
    env,
    workingDir: props.homePath,
    // The person's git credentials (the same optional Secret volume the workspace container mounts), for a private repository.
    volumeMounts: [{ name: HOME_VOLUME, mountPath: props.homePath }, { name: GIT_CREDENTIALS_VOLUME, mountPath: GIT_CREDENTIALS_DIR, readOnly: true }],
    // The workspace container's own resources: the pod is charged the larger of the two, so the
    // clone adds nothing to what the quota counts.
    ...(props.resources !== undefined ? { resources: props.resources } : {}),
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    terminationMessagePath: TERMINATION_LOG,
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}
