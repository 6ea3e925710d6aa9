import fs from "node:fs";

/**
 * Who may connect to a Unix socket the service listens on: the service alone (0600), or also the
 * sandbox's dedicated user when the sandbox runs as one (that owner, 0660).
 */
export function limitSocketAccess(socketPath: string, owner?: { uid: number; gid: number }): void {
  if (owner) {
    fs.chownSync(socketPath, owner.uid, owner.gid);
    fs.chmodSync(socketPath, 0o660);
  } else {
    fs.chmodSync(socketPath, 0o600);
  }
}
