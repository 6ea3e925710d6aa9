/**
 * Node closes the descriptors it opens itself on exec, but not those the host process inherited
 * from its own parent (a supervisor's pipe, an activation socket): without this step they would
 * pass through bubblewrap into the sandbox. A bash prelude closes every descriptor above `keep`
 * (0-2 are the stdio pipes, 3 the job channel, then the files the plan passes) and then execs the
 * real command. dash cannot name descriptors above 9, hence bash.
 */
const script = `keep=$1; shift; for fd in /proc/$$/fd/*; do fd=\${fd##*/}; if [ "$fd" -gt "$keep" ]; then eval "exec $fd>&-"; fi; done; exec "$@"`;

export function withInheritedFdsClosed(bash: string | undefined, command: string, args: readonly string[], keep = 3): { command: string; args: string[] } {
  if (!bash) return { command, args: [...args] };
  // --norc: bash sources ~/.bashrc when its stdin is a socket (it guesses it was started by sshd), and Node's stdio pipes are sockets.
  return { command: bash, args: ["--norc", "--noprofile", "-c", script, "thinktank-close-fds", String(keep), command, ...args] };
}
