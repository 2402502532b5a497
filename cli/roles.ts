// The roles and commands this build provides. Each entry is added by the issue that
// delivers it, so an unfinished role is absent rather than pretending to run.
// Roles load lazily so `den gateway` never pulls in the web server's dependencies.
import type { Role } from './role.js';

export const ROLES: Record<string, () => Promise<Role>> = {
  gateway: async () => (await import('../gateway/role.js')).gatewayRole,
};

export const COMMANDS: Record<string, { summary: string; run: (argv: string[]) => Promise<number> }> = {};
