/**
 * The seccomp filter bubblewrap loads (`--seccomp FD`) before it starts the sandboxed program: a
 * classic BPF program that answers EPERM to system calls no sandboxed program needs and that widen
 * the kernel surface it can reach (much as Docker's default profile does): kernel modules and
 * keyrings, mounts and namespaces, tracing and reading other processes' memory, bpf and
 * perf_event_open, io_uring, userfaultfd, clock and reboot. Calls from another ABI than the host's
 * (32-bit int 0x80 or x32 on x86-64), whose numbers the list would not catch, kill the process.
 */

/** The refused calls, by name (their numbers differ per architecture). */
export const refusedSyscalls = [
  "acct", "add_key", "bpf", "clock_adjtime", "clock_settime", "delete_module", "finit_module", "fsconfig", "fsmount", "fsopen",
  "fspick", "init_module", "io_uring_enter", "io_uring_register", "io_uring_setup", "ioperm", "iopl", "kcmp", "kexec_file_load",
  "kexec_load", "keyctl", "lookup_dcookie", "mount", "mount_setattr", "move_mount", "name_to_handle_at", "nfsservctl",
  "open_by_handle_at", "open_tree", "perf_event_open", "pivot_root", "process_madvise", "process_vm_readv", "process_vm_writev",
  "ptrace", "quotactl", "quotactl_fd", "reboot", "request_key", "setns", "settimeofday", "swapoff", "swapon", "syslog", "umount2",
  "unshare", "uselib", "userfaultfd", "vhangup",
] as const;

type Syscall = (typeof refusedSyscalls)[number];

// From the kernel's uapi headers: asm/unistd_64.h (x86-64) and asm-generic/unistd.h (arm64, which lacks the x86-only calls).
const x64: Readonly<Record<Syscall, number>> = {
  acct: 163, add_key: 248, bpf: 321, clock_adjtime: 305, clock_settime: 227, delete_module: 176, finit_module: 313, fsconfig: 431,
  fsmount: 432, fsopen: 430, fspick: 433, init_module: 175, io_uring_enter: 426, io_uring_register: 427, io_uring_setup: 425,
  ioperm: 173, iopl: 172, kcmp: 312, kexec_file_load: 320, kexec_load: 246, keyctl: 250, lookup_dcookie: 212, mount: 165,
  mount_setattr: 442, move_mount: 429, name_to_handle_at: 303, nfsservctl: 180, open_by_handle_at: 304, open_tree: 428,
  perf_event_open: 298, pivot_root: 155, process_madvise: 440, process_vm_readv: 310, process_vm_writev: 311, ptrace: 101,
  quotactl: 179, quotactl_fd: 443, reboot: 169, request_key: 249, setns: 308, settimeofday: 164, swapoff: 168, swapon: 167,
  syslog: 103, umount2: 166, unshare: 272, uselib: 134, userfaultfd: 323, vhangup: 153,
};
const arm64: Readonly<Partial<Record<Syscall, number>>> = {
  acct: 89, add_key: 217, bpf: 280, clock_adjtime: 266, clock_settime: 112, delete_module: 106, finit_module: 273, fsconfig: 431,
  fsmount: 432, fsopen: 430, fspick: 433, init_module: 105, io_uring_enter: 426, io_uring_register: 427, io_uring_setup: 425,
  kcmp: 272, kexec_file_load: 294, kexec_load: 104, keyctl: 219, lookup_dcookie: 18, mount: 40, mount_setattr: 442,
  move_mount: 429, name_to_handle_at: 264, nfsservctl: 42, open_by_handle_at: 265, open_tree: 428, perf_event_open: 241,
  pivot_root: 41, process_madvise: 440, process_vm_readv: 270, process_vm_writev: 271, ptrace: 117, quotactl: 60,
  quotactl_fd: 443, reboot: 142, request_key: 218, setns: 268, settimeofday: 170, swapoff: 225, swapon: 224, syslog: 116,
  umount2: 39, unshare: 97, userfaultfd: 282, vhangup: 58,
};

const architectures: Readonly<Record<string, { audit: number; numbers: Readonly<Partial<Record<Syscall, number>>>; x32: boolean }>> = {
  x64: { audit: 0xc000003e, numbers: x64, x32: true },
  arm64: { audit: 0xc00000b7, numbers: arm64, x32: false },
};

// Classic BPF as the kernel reads it (linux/filter.h, linux/seccomp.h).
const loadWord = 0x20; // BPF_LD | BPF_W | BPF_ABS
const jumpIfEqual = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const jumpIfAtLeast = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const returnValue = 0x06; // BPF_RET | BPF_K
const nrOffset = 0; // seccomp_data.nr
const archOffset = 4; // seccomp_data.arch
const allow = 0x7fff0000;
const refuse = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM
const killProcess = 0x80000000;
const x32Bit = 0x40000000;

/** The numbers of the refused calls on `arch` (a `process.arch` value), ascending, or undefined where there is no table. */
export function refusedSyscallNumbers(arch: string = process.arch): number[] | undefined {
  const target = architectures[arch];
  return target && [...new Set(Object.values(target.numbers))].sort((a, b) => a - b);
}

/** The filter for `arch` (a `process.arch` value) as bytes for bubblewrap, or undefined where it has no syscall table. */
export function seccompFilter(arch: string = process.arch): Buffer | undefined {
  const target = architectures[arch];
  const numbers = refusedSyscallNumbers(arch);
  if (!target || !numbers) return undefined;
  // Layout: [arch check] [load nr] [x32 check] [one compare per number] allow, refuse, kill.
  type Jump = "next" | "refuse" | "kill";
  const program: { code: number; k: number; jt?: Jump; jf?: Jump }[] = [
    { code: loadWord, k: archOffset },
    { code: jumpIfEqual, k: target.audit, jt: "next", jf: "kill" },
    { code: loadWord, k: nrOffset },
    ...(target.x32 ? [{ code: jumpIfAtLeast, k: x32Bit, jt: "kill" as const, jf: "next" as const }] : []),
    ...numbers.map((nr) => ({ code: jumpIfEqual, k: nr, jt: "refuse" as const, jf: "next" as const })),
    { code: returnValue, k: allow },
    { code: returnValue, k: refuse },
    { code: returnValue, k: killProcess },
  ];
  const refuseAt = program.length - 2;
  const killAt = program.length - 1;
  const offset = (from: number, to: Jump | undefined): number => (to === undefined || to === "next" ? 0 : (to === "refuse" ? refuseAt : killAt) - from - 1);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, at) => {
    // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; } in the host's byte order (little-endian on both).
    bytes.writeUInt16LE(instruction.code, at * 8);
    bytes.writeUInt8(offset(at, instruction.jt), at * 8 + 2);
    bytes.writeUInt8(offset(at, instruction.jf), at * 8 + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, at * 8 + 4);
  });
  return bytes;
}
