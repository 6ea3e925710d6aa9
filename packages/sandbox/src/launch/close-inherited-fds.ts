/**
 * Node closes the descriptors it opens itself on exec, but not those the host process inherited
 * from its own parent (a supervisor's pipe, an activation socket): without this step they would
 * pass through bubblewrap into the sandbox. A bash prelude closes every descriptor above `keep`
 * (0-2 are the stdio pipes, 3 the job channel, then the files the plan passes) and then execs the
 * real command. dash cannot name descriptors above 9, hence bash.
 */
const script = `keep=$1; shift; for fd in /proc/$$/fd/*; do fd=\${fd##*/}; if [ "$fd" -gt "$keep" ]; then eval "exec $fd>&-"; fi; done; exec "$@"`;
const name = "thinktank-close-fds";
// --norc: bash sources ~/.bashrc when its stdin is a socket (it guesses it was started by sshd), and Node's stdio pipes are sockets.
const bashOptions = ["--norc", "--noprofile", "-c"];

export function withInheritedFdsClosed(bash: string | undefined, command: string, args: readonly string[], keep = 3): { command: string; args: string[] } {
  if (!bash) return { command, args: [...args] };
  return { command: bash, args: [...bashOptions, script, name, String(keep), command, ...args] };
}

/**
 * A launch made by `withInheritedFdsClosed` whose bash first runs `first` (which consumes its own
 * `firstArgs` with `shift`, runs no other process and forks nothing) and, once the descriptors are
 * closed, execs `wrapper` (a command prefix such as setpriv) before the command: one shell instead
 * of a shell in front of it. Undefined when `launch` has no such prelude (no bash on this host).
 */
export function beforeClosingFds(launch: { command: string; args: readonly string[] }, first: string, firstArgs: readonly string[], wrapper: readonly string[]): { command: string; args: string[] } | undefined {
  const [options0, options1, options2, ownScript, ownName, keep, ...rest] = launch.args;
  if ([options0, options1, options2].join(" ") !== bashOptions.join(" ") || ownScript !== script || ownName !== name || keep === undefined) return undefined;
  return { command: launch.command, args: [...bashOptions, `${first} ${script}`, name, ...firstArgs, keep, ...wrapper, ...rest] };
}
