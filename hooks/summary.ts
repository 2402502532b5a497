// `den manager` in one line, for `den --help`: importable without loading the role's stack.
export const MANAGER_SUMMARY = 'controller manager: reconciles UserSpaces and Workspaces and serves the admission webhooks';
