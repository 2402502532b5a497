// How a workspace pod stops (docs/workspace.md "Stopping"). The container's PID 1 is the
// image's command, `sleep infinity` by default, which ignores SIGTERM: the kernel does not
// deliver a signal without a handler to a PID namespace's init, so the kubelet's SIGTERM
// changes nothing and the pod would wait out the grace period. The preStop step signals every
// other process instead, and a short grace period bounds the wait for PID 1.

/** Seconds the processes in the pod have between SIGTERM and SIGKILL. */
export const STOP_WAIT_SECONDS = 2;

/**
 * The pod's terminationGracePeriodSeconds. The kubelet runs preStop within it and then
 * gives PID 1 at least 2 s more, so a pod whose processes ignore SIGTERM is gone after
 * STOP_WAIT_SECONDS + 2 s, and one whose processes exit at once after about 2 s.
 */
export const STOP_GRACE_SECONDS = STOP_WAIT_SECONDS + 1;

/**
 * The preStop script (POSIX sh, shell built-ins and `sleep` only). `kill -TERM -1` reaches
 * every process the container user may signal except PID 1 and the script itself: sessions
 * started over SSH and everything they started. It then waits, up to STOP_WAIT_SECONDS, for
 * every process but PID 1 and itself to end (zombies count as ended: an orphan's parent is
 * PID 1, which may never reap it), and sends SIGKILL to those left.
 */
export const STOP_SCRIPT = [
  'kill -TERM -1 2>/dev/null',
  'i=0',
  `while [ "$i" -lt ${STOP_WAIT_SECONDS * 10} ]; do`,
  '  left=',
  '  for p in /proc/[0-9]*; do',
  '    p=${p#/proc/}',
  '    if [ "$p" = 1 ] || [ "$p" = "$$" ]; then continue; fi',
  '    { read -r stat < "/proc/$p/stat"; } 2>/dev/null || continue',
  '    state=${stat##*) }',
  '    [ "${state%% *}" = Z ] || left=1',
  '  done',
  '  [ -z "$left" ] && exit 0',
  '  sleep 0.1',
  '  i=$((i + 1))',
  'done',
  'kill -KILL -1 2>/dev/null',
  'exit 0',
].join('\n');

/** The container's preStop handler: the script, run by the image's /bin/sh. */
export const PRE_STOP = { exec: { command: ['/bin/sh', '-c', STOP_SCRIPT] } };
