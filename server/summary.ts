// `den server` in one line, for `den --help`: importable without loading the role's stack.
export const SERVER_SUMMARY = 'REST API server: sessions, API tokens, local users and the resource endpoints';
