// The commands devcontainer.json and the dotfiles ask for, run in the WORKSPACE image (issue 34
// parts 2 and 3) by /bin/sh alone (no git, no Den binary in that image):
// - the `lifecycle` init container runs onCreateCommand and postCreateCommand once (a marker in
//   ~/.den keeps a later start from running them again), installs the dotfiles once, checks
//   containerUser/remoteUser against the image's /etc/passwd, and reports in its termination
//   message (hooks/workspace/lifecycle-status.ts). It always exits 0: a failed command is
//   reported, it never stops the workspace.
// - the workspace container's command replays that output into the container log (the page's
//   log tab, `den logs`), starts postStartCommand in the background, then execs the entry's command.
// Every command's output is also kept in ~/.den/logs/<command>.log.
import { DOTFILES_MARKER, LIFECYCLE_CONTAINER, LIFECYCLE_LOG_DIR, LIFECYCLE_MARKER } from '../../../contract/devcontainer.js';
import { TERMINATION_LOG } from '../../../contract/workspace-source.js';
import type { LifecycleProps, WorkspaceChildrenProps } from './props.js';

/** This start's output of the lifecycle init container, printed again by the workspace container. */
const START_LOG = `${LIFECYCLE_LOG_DIR}/lifecycle-start.log`;

/**
 * `run NAME FOLDER SCRIPT`: the script by /bin/sh in FOLDER (the home when it is missing), its
 * output to the container log, ~/.den/logs/NAME.log and this start's log; a failure adds words.
 */
const RUN = [
  'den="$HOME/.den"; logs="$HOME/' + LIFECYCLE_LOG_DIR + '"',
  'say() { printf "den: %s\\n" "$*" | tee -a "$logs/lifecycle-start.log"; }',
  'note() { words="$words $*"; }',
  'run() {',
  '  say "running $1 in $2 (its output is kept in ~/' + LIFECYCLE_LOG_DIR + '/$1.log)"',
  '  { ( cd "$2" 2>/dev/null || cd "$HOME"; exec /bin/sh -c "$3" ) </dev/null 2>&1; echo "$?" >"$den/.lifecycle-exit"; } | tee -a "$logs/$1.log" "$logs/lifecycle-start.log"',
  '  code=$(cat "$den/.lifecycle-exit" 2>/dev/null); rm -f "$den/.lifecycle-exit"',
  '  if [ "$code" = 0 ]; then say "$1 finished"; note "$1 ran."; return 0; fi',
  '  last=$(tail -n 1 "$logs/$1.log" 2>/dev/null | cut -c1-200)',
  '  say "$1 failed (exit $code); the workspace starts anyway"',
  '  result=failed; note "$1 failed (exit $code)${last:+: $last}. Its output is in ~/' + LIFECYCLE_LOG_DIR + '/$1.log and the workspace log; the workspace runs anyway."',
  '}',
].join('\n');

/** The lifecycle init container's script: $1 folder, $2 onCreate, $3 postCreate, $4 users, $5 dotfiles step. */
export const LIFECYCLE_SCRIPT = [
  RUN,
  'result=ok; words=""',
  'report="${DEN_TERMINATION_LOG:-' + TERMINATION_LOG + '}"',
  'mkdir -p "$logs" && : >"$logs/lifecycle-start.log" || { printf "failed\\nThe home is not writable (%s), so no command ran." "$HOME" >"$report"; exit 0; }',
  // The image's users, as devcontainer.json names them.
  'uid=$(id -u)',
  'for pair in $4; do',
  '  setting=${pair%%=*}; name=${pair#*=}; found=""',
  '  while IFS=: read -r n _ u _; do if [ "$n" = "$name" ]; then found=$u; break; fi; done </etc/passwd',
  '  if [ -z "$found" ]; then note "$setting \\"$name\\": the image has no such user; the workspace runs as uid $uid (its catalog entry\'s).";',
  '  elif [ "$found" = "$uid" ]; then note "$setting \\"$name\\": the workspace runs as $name (uid $uid).";',
  '  else note "$setting \\"$name\\" is uid $found in the image, but the workspace runs as uid $uid (its catalog entry\'s runAsUser); ask an administrator for an entry that runs as uid $found."; fi',
  'done',
  'if [ -n "$2$3" ]; then',
  '  if [ -f "$HOME/' + LIFECYCLE_MARKER + '" ]; then note "onCreateCommand and postCreateCommand ran on an earlier start (delete ~/' + LIFECYCLE_MARKER + ' to run them on the next one).";',
  '  else',
  '    if [ -n "$2" ]; then run onCreateCommand "$1" "$2"; fi',
  '    if [ -n "$3" ]; then run postCreateCommand "$1" "$3"; fi',
  '    printf \'{"at":"%s"}\\n\' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$HOME/' + LIFECYCLE_MARKER + '"',
  '  fi',
  'fi',
  'if [ -n "$5" ] && [ -f "$HOME/' + DOTFILES_MARKER + '" ]; then note "Your dotfiles were installed on an earlier start (delete ~/' + DOTFILES_MARKER + ' to install them again on the next one).";',
  'elif [ -n "$5" ]; then',
  '  case "$5" in',
  '    script:*) s=${5#script:}; run dotfiles "$HOME/.dotfiles" "if [ -x \'./$s\' ]; then exec \'./$s\'; else exec /bin/sh \'./$s\'; fi" ;;',
  '    *) linked=""; kept=""',
  '       for f in "$HOME"/.dotfiles/.[!.]* "$HOME"/.dotfiles/..?*; do',
  '         [ -e "$f" ] || continue; b=${f##*/}',
  '         case "$b" in .git|.github|.gitignore|.gitmodules|.DS_Store) continue ;; esac',
  '         if [ -e "$HOME/$b" ] || [ -L "$HOME/$b" ]; then kept="$kept $b"; else ln -s ".dotfiles/$b" "$HOME/$b" && linked="$linked $b"; fi',
  '       done',
  '       say "dotfiles: linked${linked:- nothing}${kept:+; left alone (already in the home):$kept}"',
  '       note "Dotfiles linked into the home:${linked:- none}.${kept:+ Already in the home, left alone:$kept.}" ;;',
  '  esac',
  '  printf \'{"at":"%s"}\\n\' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$HOME/' + DOTFILES_MARKER + '"',
  'fi',
  'printf "%s\\n%s" "$result" "${words# }" | cut -c1-3000 >"$report"',
  'exit 0',
].join('\n');

/** The workspace container's command: $1 folder, $2 postStartCommand (or empty), then the entry's command. */
export const START_SCRIPT = [
  'start="$HOME/' + START_LOG + '"',
  'if [ -s "$start" ]; then cat "$start"; fi; rm -f "$start"',
  'if [ -n "$2" ]; then',
  '  ( mkdir -p "$HOME/' + LIFECYCLE_LOG_DIR + '"',
  '    { printf "den: running postStartCommand in %s (its output is kept in ~/' + LIFECYCLE_LOG_DIR + '/postStartCommand.log)\\n" "$1"',
  '      ( cd "$1" 2>/dev/null || cd "$HOME"; exec /bin/sh -c "$2" ) </dev/null 2>&1; code=$?',
  '      if [ "$code" = 0 ]; then echo "den: postStartCommand finished"; else echo "den: postStartCommand failed (exit $code); the workspace runs anyway"; fi',
  '    } | tee -a "$HOME/' + LIFECYCLE_LOG_DIR + '/postStartCommand.log" ) &',
  'fi',
  'shift 2; exec "$@"',
].join('\n');

/** The arguments LIFECYCLE_SCRIPT reads. */
export function lifecycleArgs(lifecycle: LifecycleProps): string[] {
  return [lifecycle.folder, lifecycle.onCreate ?? '', lifecycle.postCreate ?? '', lifecycle.users.join(' '), lifecycle.dotfiles ?? ''];
}

/** The workspace container's command: the entry's, wrapped when there is output to replay or postStartCommand to start. */
export function workspaceCommand(props: WorkspaceChildrenProps): string[] {
  if (!props.lifecycle && !props.postStart) return props.command;
  return ['/bin/sh', '-c', START_SCRIPT, 'den-start', props.postStart?.folder ?? props.homePath, props.postStart?.command ?? '', ...props.command];
}

/**
 * The `lifecycle` init container: the workspace image, its environment, mounts and resources
 * (copied from the rendered workspace container), LIFECYCLE_SCRIPT as /bin/sh's script.
 */
export function lifecycleInitContainer(props: WorkspaceChildrenProps, workspaceContainer: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!props.lifecycle) return undefined;
  const { name: _name, command: _command, lifecycle: _hooks, ports: _ports, ...same } = workspaceContainer;
  return {
    ...same,
    name: LIFECYCLE_CONTAINER,
    command: ['/bin/sh', '-c', LIFECYCLE_SCRIPT, 'den-lifecycle', ...lifecycleArgs(props.lifecycle)],
    terminationMessagePath: TERMINATION_LOG,
    terminationMessagePolicy: 'File',
  };
}
