// `den gateway` in one line, for `den --help`: importable without loading the role's stack.
export const GATEWAY_SUMMARY = 'SSH gateway: authenticates SSH sessions and connects them to workspace pods';
