// The roles and commands this build provides. Each entry is added by the issue that
// delivers it, so an unfinished role is absent rather than pretending to run.
// Roles load lazily so `den gateway` never pulls in the web server's dependencies.
import type { Role } from '../process/role.js';
import { GATEWAY_SUMMARY } from '../gateway/summary.js';
import { MANAGER_SUMMARY } from '../hooks/summary.js';
import { SERVER_SUMMARY } from '../server/summary.js';

export const ROLES: Record<string, () => Promise<Role>> = {
  gateway: async () => (await import('../gateway/role.js')).gatewayRole,
  manager: async () => (await import('../hooks/manager-role.js')).managerRole,
  server: async () => (await import('../server/role.js')).serverRole,
};

/** Each role's one-line summary, read so `den --help` prints it without loading the role (a role pulls in its whole stack). */
export const ROLE_SUMMARIES: Record<keyof typeof ROLES & string, string> = {
  gateway: GATEWAY_SUMMARY,
  manager: MANAGER_SUMMARY,
  server: SERVER_SUMMARY,
};

export const COMMANDS: Record<string, { summary: string; run: (argv: string[]) => Promise<number> }> = {
  users: {
    summary: 'add a person: UserSpace and local user (`den users add <name> --owner <email> [--admin]`)',
    run: async (argv) => (await import('./users.js')).runUsersCommand(argv),
  },
  'clone-source': {
    summary: 'clone a Workspace\'s spec.source into its home (what the workspace pod\'s clone init container runs; not for people)',
    run: async () => (await import('../source/command.js')).runCloneCommand(process.env),
  },
};
