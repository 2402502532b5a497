// The roles and commands this build provides. Each entry is added by the issue that
// delivers it, so an unfinished role is absent rather than pretending to run.
// Roles load lazily so `den gateway` never pulls in the web server's dependencies.
import type { Role } from './role.js';

export const ROLES: Record<string, () => Promise<Role>> = {
  gateway: async () => (await import('../gateway/role.js')).gatewayRole,
  manager: async () => (await import('../hooks/manager-role.js')).managerRole,
  server: async () => (await import('../server/role.js')).serverRole,
};

export const COMMANDS: Record<string, { summary: string; run: (argv: string[]) => Promise<number> }> = {
  users: {
    summary: 'add a person: UserSpace and local user (`den users add <name> --owner <email> [--admin]`)',
    run: async (argv) => (await import('./users.js')).runUsersCommand(argv),
  },
};
