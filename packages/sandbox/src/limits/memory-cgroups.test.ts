// Where this process's memory cgroup is, from /proc/self/mountinfo and /proc/self/cgroup, for the
// layouts a host can have (this machine shows only one; memory-per-execution.test.ts uses it for real).
import { describe, expect, it } from "vitest";
import { memoryHierarchies } from "./memory-cgroups.js";

describe("memoryHierarchies", () => {
  it("finds a pure cgroup v2 host's cgroup under its mount", () => {
    const mountinfo = "35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";
    const procCgroup = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope\n";
    expect(memoryHierarchies(mountinfo, procCgroup)).toEqual([{ version: 2, dir: "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope" }]);
  });

  it("on a hybrid host lists cgroup v2 first and the v1 memory hierarchy after it, ignoring other v1 controllers", () => {
    const mountinfo = [
      "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu",
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
    ].join("\n");
    const procCgroup = "4:memory:/process_api/a1\n1:cpu:/\n0::/\n";
    expect(memoryHierarchies(mountinfo, procCgroup)).toEqual([
      { version: 2, dir: "/sys/fs/cgroup/unified" },
      { version: 1, dir: "/sys/fs/cgroup/memory/process_api/a1" },
    ]);
  });

  it("maps a mount of part of a hierarchy (a container's) and skips one that does not reach this process", () => {
    const procCgroup = "9:memory,kmem:/docker/abc/inner\n";
    const inside = "50 40 0:33 /docker/abc /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory,kmem";
    expect(memoryHierarchies(inside, procCgroup)).toEqual([{ version: 1, dir: "/sys/fs/cgroup/memory/inner" }]);
    const elsewhere = "50 40 0:33 /docker/other /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory";
    expect(memoryHierarchies(elsewhere, procCgroup)).toEqual([]);
  });

  it("unescapes mount points and finds nothing without a memory hierarchy", () => {
    expect(memoryHierarchies("35 24 0:30 / /mnt/cg\\040two rw - cgroup2 cgroup2 rw", "0::/a\n")).toEqual([{ version: 2, dir: "/mnt/cg two/a" }]);
    expect(memoryHierarchies("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu", "1:cpu:/\n")).toEqual([]);
  });
});
