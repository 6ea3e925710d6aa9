/**
 * Node closes the descriptors it opens itself on exec, but not those the host process inherited
 * from its own parent (a supervisor's pipe, an activation socket): without this step they would
 * pass through bubblewrap into the sandbox. A bash prelude closes every descriptor above 3 (0-2 are
 * the stdio pipes, 3 the job channel) and then execs the real command. dash cannot name descriptors
 * above 9, hence bash.
 */
const script = `for fd in /proc/$$/fd/*; do fd=\${fd##*/}; if [ "$fd" -gt 3 ]; then eval "exec $fd>&-"; fi; done; exec "$@"`;

export function withInheritedFdsClosed(bash: string | undefined, command: string, args: readonly string[]): { command: string; args: string[] } {
  if (!bash) return { command, args: [...args] };
  // --norc: bash sources ~/.bashrc when its stdin is a socket (it guesses it was started by sshd), and Node's stdio pipes are sockets.
  return { command: bash, args: ["--norc", "--noprofile", "-c", script, "thinktank-close-fds", command, ...args] };
}
