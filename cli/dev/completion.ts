// Shell completion for bash and zsh: commands from this build, workspace names from the API
// (`den __complete workspaces`, silent when not signed in so a Tab never prints an error).
import type { Json } from './api.js';
import { CONTEXT_OPTIONS, parse, usage } from './args.js';
import { UsageError, type DevIo } from './io.js';
import { connect } from './session.js';

/** Commands whose first argument is a workspace name. */
export const TAKES_WORKSPACE = ['start', 'stop', 'delete', 'logs', 'ssh', 'code', 'forward', 'share'];

function bash(commands: string[]): string {
  return `# den completion for bash: source <(den completion bash)
_den() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${commands.join(' ')}" -- "$cur") )
  elif [ "$COMP_CWORD" -eq 2 ]; then
    case "\${COMP_WORDS[1]}" in
      ${TAKES_WORKSPACE.join('|')}) COMPREPLY=( $(compgen -W "$(den __complete workspaces 2>/dev/null)" -- "$cur") ) ;;
      completion) COMPREPLY=( $(compgen -W "bash zsh" -- "$cur") ) ;;
    esac
  fi
}
complete -F _den den
`;
}

function zsh(commands: string[]): string {
  return `#compdef den
# den completion for zsh: source <(den completion zsh)
_den() {
  if (( CURRENT == 2 )); then
    compadd -- ${commands.join(' ')}
  elif (( CURRENT == 3 )); then
    case $words[2] in
      ${TAKES_WORKSPACE.join('|')}) compadd -- \${(f)"$(den __complete workspaces 2>/dev/null)"} ;;
      completion) compadd -- bash zsh ;;
    esac
  fi
}
if (( $+functions[compdef] )); then compdef _den den; else autoload -Uz compinit && compinit && compdef _den den; fi
`;
}

export function completion(commands: () => string[]) {
  return async (argv: string[], io: DevIo): Promise<number> => {
    const { positionals, help } = parse(argv, {}, { min: 1, max: 1, names: 'the shell (bash or zsh)' });
    if (help) return usage(io, 'den completion bash|zsh  prints the completion script: source <(den completion bash)');
    const shell = positionals[0];
    if (shell !== 'bash' && shell !== 'zsh') throw new UsageError(`completion is for bash or zsh, not "${shell}"`);
    io.stdout.write(shell === 'bash' ? bash(commands()) : zsh(commands()));
    return 0;
  };
}

/** `den __complete workspaces`: the names, one a line. */
export async function complete(argv: string[], io: DevIo): Promise<number> {
  const { values, positionals } = parse(argv, CONTEXT_OPTIONS, { min: 1, max: 1, names: 'what to complete' });
  if (positionals[0] !== 'workspaces') throw new UsageError(`cannot complete "${positionals[0]}"`);
  const { api } = await connect(io, values);
  const list = await api.request<{ items: Json[] }>('GET', '/workspaces');
  io.stdout.write(list.items.map((w) => `${w.metadata.name}\n`).join(''));
  return 0;
}
