// `den server` in one line, for `den --help`: importable without loading the role's stack.
export const SERVER_SUMMARY = 'web UI and REST API: sign-in, sessions, API tokens, workspaces, catalog and administration';
