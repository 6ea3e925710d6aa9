/**
 * How a program inside a bubblewrap sandbox reaches the egress proxy. The sandbox has its own
 * network namespace with nothing but loopback, and proxy clients (curl, Python's urllib, pip, the
 * fetch of the JavaScript bootstraps) want a TCP address. So, for runs that may use the network, a
 * tiny forwarder starts inside the sandbox before the interpreter: it listens on the sandbox's
 * 127.0.0.1:3128 and relays each connection to the worker's egress socket (bound read-only at
 * /run/thinktank/egress.sock), where the host hands it to the proxy with the run's policy. It runs
 * on the host's node (bound read-only), as the sandbox user, in the execution's cgroup; it grants
 * nothing by itself: the proxy decides every connection.
 */
import { sandboxBridgeDir } from "../sandbox-paths.js";

/** The forwarder's port on the sandbox's loopback. */
export const sandboxProxyPort = 3128;

/** The proxy URL programs in a bubblewrap sandbox are given. */
export const sandboxProxyUrl = `http://127.0.0.1:${sandboxProxyPort}`;

/** Where the worker's egress socket appears inside the sandbox. */
export const sandboxEgressSocket = `${sandboxBridgeDir}/egress.sock`;

/** The forwarder (CommonJS for `node -e`): argv is the socket path and the port; prints "ok" and closes stdout once it listens. */
const forwarderSource = `
const net = require("net");
const fs = require("fs");
const [socketPath, port] = process.argv.slice(1);
const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
  const upstream = net.connect({ path: socketPath, allowHalfOpen: true });
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on("error", end).on("close", end);
  upstream.on("error", end).on("close", end);
  client.pipe(upstream);
  upstream.pipe(client);
});
// Ready: "ok" and end of file on stdout; /dev/null takes descriptor 1 again, so no socket lands on it.
server.listen(Number(port), "127.0.0.1", () => { fs.writeSync(1, "ok"); fs.closeSync(1); fs.openSync("/dev/null", "w"); });
`;

/**
 * Wraps the sandbox's command so the forwarder starts first: `sh` runs it in the background with
 * its stdout on a command substitution, which returns once the forwarder has closed stdout (it is
 * listening), then execs the command. A forwarder that cannot start stops the worker before the
 * interpreter does (exit 125, with the reason on stderr).
 */
export function withEgressForwarder(nodeExecutable: string, command: readonly string[]): string[] {
  const script = [
    `ready=$("$1" --max-old-space-size=16 --max-semi-space-size=1 --v8-pool-size=1 -e "$2" "$3" "$4" </dev/null 2>/dev/null 3>&- 4>&- &)`,
    `[ "$ready" = ok ] || { echo "thinktank: the egress forwarder did not start inside the sandbox" >&2; exit 125; }`,
    `shift 4`,
    `exec "$@"`,
  ].join("\n");
  return ["/bin/sh", "-c", script, "sh", nodeExecutable, forwarderSource, sandboxEgressSocket, String(sandboxProxyPort), ...command];
}
