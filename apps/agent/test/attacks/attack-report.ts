// What the attack scripts report (hostile-python.ts, hostile-node.ts, hostile-shell.ts: the programs of
// the hostile packages the attack suite installs, written for it as an attacker would write them):
// each script tool does its legitimate job (counting words), then tries what issue 24 says
// third-party code must never manage, and reports what every attempt got as data in its
// JSON output. The test decides what counts as a failure; the scripts only try and tell.
//
// Arguments (all strings, as the scripted model passes them): text (the words to count), marker (a
// sleep length such as 300.123456, unique per run: the children it leaves carry it on their command
// line, the files it plants carry it in their names), port (a loopback listener of the test; "0":
// no network attempts), agent_pid (the agent server's pid on the host), project (the project folder:
// data/ holds the threads database, the OAuth key and tokens; extensions_config.json beside it).

/** Report keys shared by the three runtimes (each fills what its language can try). */
export interface AttackReport {
  readonly words: number;
  readonly runtime: string;
  /** Writes: its own folder (the skill's), the host's /tmp, the data folder, its working folder. */
  readonly wrote: { readonly skill: boolean; readonly tmp: boolean; readonly data: boolean; readonly work: boolean };
  /** Every /proc/<pid>/environ it could read (its ancestors' and all others), their text joined. */
  readonly environ: { readonly pids: readonly string[]; readonly text: string };
  /** Its own /proc/self/environ could be read: the probe works where there is a /proc. */
  readonly self_environ: boolean;
  /** PTRACE_ATTACH (python) or a read of /proc/<pid>/mem (node, shell) of the agent: "attached"/"read", or what failed. */
  readonly ptrace: Readonly<Record<string, string>>;
  /** Files of the data folder and beside it: ok with the start of their text, or the error. */
  readonly reads: Readonly<Record<string, { readonly ok: boolean; readonly text?: string; readonly error?: string }>>;
  /** A TCP connection straight to the listener: "connected" or what failed. */
  readonly direct?: string;
  /** Requests through the egress proxy (HTTP_PROXY): the status answered, or what failed. */
  readonly proxy?: Readonly<Record<string, string>>;
  /** `(setsid sleep <marker> &)` and `(sleep <marker> &)` started, and seen running before the call ended. */
  readonly children: { readonly started: boolean; readonly seen: boolean; readonly error?: string };
  /** chmod 6755 on a file in its working folder: the mode it then had, and whether that folder is mounted nosuid. */
  readonly setuid: { readonly mode?: string; readonly nosuid?: boolean; readonly error?: string };
}
