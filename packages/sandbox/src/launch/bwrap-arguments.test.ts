import { describe, expect, it } from "vitest";
import { bwrapArguments } from "./bwrap-arguments.js";
import type { BwrapArgumentsInput } from "./bwrap-arguments.js";

const input: BwrapArgumentsInput = {
  features: { disableUserns: true, tmpfsSize: true },
  systemEntries: [{ path: "/usr" }, { path: "/bin", symlink: "usr/bin" }, { path: "/lib64" }],
  etcDir: "/run/tt/etc",
  alternativesDir: "/etc/alternatives",
  interpreterBinds: ["/opt/python-3.11"],
  runDir: "/run/tt/workers/1",
  workspaceDir: "/data/workspaces/t1",
  mounts: [{ hostPath: "/data/code-api", sandboxPath: "/mnt/code-api" }],
  tmpMb: 8,
  env: { PATH: "/usr/bin", HOME: "/mnt/user-data/workspace" },
  sourceOf: (hostPath) => (hostPath === "/opt/python-3.11" ? "/run/tt/stage-0" : hostPath),
  command: ["/usr/bin/prlimit", "--", "/usr/bin/node"],
};

/** The values that follow each occurrence of `flag`. */
const after = (args: string[], flag: string, count = 1): string[][] => args.flatMap((arg, index) => (arg === flag ? [args.slice(index + 1, index + 1 + count)] : []));

describe("bwrapArguments", () => {
  const args = bwrapArguments(input);

  it("unshares every namespace, drops capabilities and user namespaces, dies with its parent", () => {
    for (const flag of ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--clearenv", "--disable-userns"]) expect(args).toContain(flag);
    expect(after(args, "--cap-drop")).toEqual([["ALL"]]);
    expect(after(args, "--hostname")).toEqual([["sandbox"]]);
    expect(args).not.toContain("--share-net");
  });

  it("binds the system and the interpreters read-only, recreating merged-/usr symlinks", () => {
    expect(after(args, "--ro-bind", 2)).toEqual(
      expect.arrayContaining([["/usr", "/usr"], ["/lib64", "/lib64"], ["/run/tt/stage-0", "/opt/python-3.11"], ["/run/tt/etc", "/etc"], ["/etc/alternatives", "/etc/alternatives"], ["/data/code-api", "/mnt/code-api"], ["/run/tt/workers/1", "/run/thinktank"]]),
    );
    expect(after(args, "--symlink", 2)).toEqual([["usr/bin", "/bin"]]);
  });

  it("mounts only the workspace read-write, and nothing from the host's /etc but alternatives", () => {
    expect(after(args, "--bind", 2)).toEqual([["/data/workspaces/t1", "/mnt/user-data/workspace"]]);
    expect(after(args, "--ro-bind", 2).filter(([, target]) => target?.startsWith("/etc"))).toEqual([["/run/tt/etc", "/etc"], ["/etc/alternatives", "/etc/alternatives"]]);
  });

  it("binds a mount marked writable read-write, after the workspace, and the others still read-only", () => {
    const withOutputs = bwrapArguments({ ...input, mounts: [...input.mounts, { hostPath: "/data/user-data/t1/outputs", sandboxPath: "/mnt/user-data/outputs", writable: true }] });
    expect(after(withOutputs, "--bind", 2)).toEqual([
      ["/data/workspaces/t1", "/mnt/user-data/workspace"],
      ["/data/user-data/t1/outputs", "/mnt/user-data/outputs"],
    ]);
    expect(after(withOutputs, "--ro-bind", 2)).toContainEqual(["/data/code-api", "/mnt/code-api"]);
    expect(withOutputs.lastIndexOf("--remount-ro")).toBeGreaterThan(withOutputs.lastIndexOf("--bind"));
  });

  it("sizes /tmp and /dev/shm, and makes the root and /dev read-only after the last mount", () => {
    expect(after(args, "--size")).toEqual([["8388608"], ["8388608"]]);
    expect(args[args.indexOf("--tmpfs", args.indexOf("--size")) - 2]).toBe("--size");
    const lastMount = Math.max(...args.map((arg, index) => (["--bind", "--ro-bind", "--tmpfs"].includes(arg) ? index : -1)));
    expect(args.indexOf("--remount-ro")).toBeLessThan(args.lastIndexOf("--remount-ro"));
    expect(after(args, "--remount-ro")).toEqual([["/dev"], ["/"]]);
    expect(args.lastIndexOf("--remount-ro")).toBeGreaterThan(lastMount);
  });

  it("starts in the workspace with only the given environment, then runs the command", () => {
    expect(after(args, "--chdir")).toEqual([["/mnt/user-data/workspace"]]);
    expect(after(args, "--setenv", 2)).toEqual([["PATH", "/usr/bin"], ["HOME", "/mnt/user-data/workspace"]]);
    expect(args.slice(args.indexOf("--"))).toEqual(["--", "/usr/bin/prlimit", "--", "/usr/bin/node"]);
  });

  it("loads the seccomp filter from the descriptor it is given, and only then", () => {
    const filtered = bwrapArguments({ ...input, seccompFd: 4 });
    expect(after(filtered, "--seccomp")).toEqual([["4"]]);
    expect(filtered.indexOf("--seccomp")).toBeLessThan(filtered.indexOf("--"));
    expect(args).not.toContain("--seccomp");
  });

  it("leaves out options an older bubblewrap lacks", () => {
    const old = bwrapArguments({ ...input, features: { disableUserns: false, tmpfsSize: false } });
    expect(old).not.toContain("--disable-userns");
    expect(old).not.toContain("--size");
  });
});
