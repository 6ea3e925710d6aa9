/**
 * nobody / nogroup: the user sandboxed programs run as when the service runs as root, the group
 * that may traverse the data folder to reach their workspaces then, and the user host programs run
 * as where no pid namespace can confine them.
 */
export const unprivilegedIds: { readonly uid: number; readonly gid: number } = Object.freeze({ uid: 65534, gid: 65534 });
