import { describe, expect, it } from "vitest";
import { refusedSyscallNumbers, refusedSyscalls, seccompFilter } from "./seccomp-filter.js";

const allow = 0x7fff0000;
const eperm = 0x00050001;
const kill = 0x80000000;
const archX64 = 0xc000003e;
const archArm64 = 0xc00000b7;

/** Runs a classic-BPF seccomp program on (nr, arch) the way the kernel does, for the instructions the filter uses. */
function verdict(program: Buffer, nr: number, arch: number): number {
  const data = [nr, arch];
  let accumulator = 0;
  for (let at = 0; at * 8 < program.length; ) {
    const code = program.readUInt16LE(at * 8);
    const jt = program.readUInt8(at * 8 + 2);
    const jf = program.readUInt8(at * 8 + 3);
    const k = program.readUInt32LE(at * 8 + 4);
    if (code === 0x20) accumulator = data[k / 4] as number;
    else if (code === 0x15) at += accumulator === k ? jt : jf;
    else if (code === 0x35) at += accumulator >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected instruction ${code}`);
    at++;
  }
  throw new Error("fell off the end of the program");
}

describe("seccompFilter", () => {
  const x64 = seccompFilter("x64") as Buffer;
  const arm64 = seccompFilter("arm64") as Buffer;

  it("refuses ptrace, mount, bpf and io_uring with EPERM and allows everyday calls (x86-64 numbers)", () => {
    for (const nr of [101, 165, 321, 425, 272]) expect(verdict(x64, nr, archX64)).toBe(eperm);
    // read, write, openat, clone, execve, getpid, mmap, prlimit64, clone3: what programs need.
    for (const nr of [0, 1, 257, 56, 59, 39, 9, 302, 435]) expect(verdict(x64, nr, archX64)).toBe(allow);
  });

  it("kills calls made through another ABI (x32 numbers, or a foreign architecture such as 32-bit int 0x80)", () => {
    expect(verdict(x64, 0x40000000 + 39, archX64)).toBe(kill);
    expect(verdict(x64, 39, 0x40000003 /* AUDIT_ARCH_I386 */)).toBe(kill);
  });

  it("uses arm64's own numbers there (ptrace is 117, not 101)", () => {
    expect(verdict(arm64, 117, archArm64)).toBe(eperm);
    expect(verdict(arm64, 101, archArm64)).toBe(allow); // timer_create on arm64
    expect(verdict(arm64, 117, archX64)).toBe(kill);
  });

  it("is whole instructions, every jump inside the program, and has no table for other architectures", () => {
    expect(x64.length % 8).toBe(0);
    expect(x64.length / 8).toBe(3 + 1 + refusedSyscalls.length + 3);
    for (const program of [x64, arm64]) {
      const count = program.length / 8;
      for (let at = 0; at < count; at++) {
        if (program.readUInt16LE(at * 8) === 0x06) continue; // a return has no jumps
        expect(at + 1 + program.readUInt8(at * 8 + 2)).toBeLessThan(count);
        expect(at + 1 + program.readUInt8(at * 8 + 3)).toBeLessThan(count);
      }
    }
    expect(refusedSyscallNumbers("x64")).toHaveLength(refusedSyscalls.length);
    expect(refusedSyscallNumbers("arm64")).toHaveLength(refusedSyscalls.length - 3); // no ioperm, iopl, uselib
    expect(seccompFilter("ia32")).toBeUndefined();
    expect(seccompFilter("riscv64")).toBeUndefined();
  });
});
