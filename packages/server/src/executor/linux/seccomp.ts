/**
 * # seccomp
 *
 * The sandbox's seccomp filter as a classic BPF program (x86_64), the raw `struct sock_filter[]` bytes that
 * `bwrap --seccomp FD` loads before it runs the sandbox's first process. Every process in the sandbox, the daemon
 * included, runs under it.
 *
 * Policy: allow by default; EPERM for the syscalls that change mounts or namespaces, load kernel code, trace or
 * read other processes, or reach kernel surfaces a sandbox has no use for (the `BLOCKED_SYSCALLS` table);
 * `clone` with any namespace flag gets EPERM; `clone3` gets ENOSYS (its flags sit in memory a filter cannot read,
 * and glibc falls back to `clone`, whose flags are checked); `ioctl` TIOCSTI and TIOCLINUX (typing into another
 * terminal) get EPERM. A syscall of another architecture (i386 through `int 0x80`) kills the process: this filter
 * only knows x86_64 numbers, so any other ABI is an escape attempt, not a workload. x32 syscalls (bit 30 set) get
 * EPERM.
 *
 * `runSeccompFilter` interprets the program, so tests check the decisions without a kernel.
 */
import { writeFile } from "node:fs/promises";

/** x86_64 syscall numbers that get EPERM. */
export const BLOCKED_SYSCALLS: Readonly<Record<string, number>> = {
  // mounts, namespaces, root changes
  mount: 165,
  umount2: 166,
  pivot_root: 155,
  chroot: 161,
  unshare: 272,
  setns: 308,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  open_tree_attr: 467,
  // kernel code and kernel-wide state
  bpf: 321,
  init_module: 175,
  finit_module: 313,
  delete_module: 176,
  kexec_load: 246,
  kexec_file_load: 320,
  reboot: 169,
  swapon: 167,
  swapoff: 168,
  acct: 163,
  quotactl: 179,
  quotactl_fd: 443,
  lookup_dcookie: 212,
  syslog: 103,
  uselib: 134,
  // other processes and kernel keyrings
  ptrace: 101,
  process_vm_readv: 310,
  process_vm_writev: 311,
  keyctl: 250,
  add_key: 248,
  request_key: 249,
  // attack surface
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  userfaultfd: 323,
  perf_event_open: 298,
  open_by_handle_at: 304,
};

const NR_CLONE = 56;
const NR_CLONE3 = 435;
const NR_IOCTL = 16;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET. */
export const CLONE_NAMESPACE_FLAGS =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
const X32_SYSCALL_BIT = 0x40000000;

export const AUDIT_ARCH_X86_64 = 0xc000003e;
export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const EPERM = 1;
export const ENOSYS = 38;

// Classic BPF opcodes.
const LD_W_ABS = 0x20;
const JMP_JEQ_K = 0x15;
const JMP_JGE_K = 0x35;
const JMP_JSET_K = 0x45;
const RET_K = 0x06;

// struct seccomp_data offsets (little-endian: the low 32 bits of an argument come first).
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const argLow = (i: number) => 16 + 8 * i;

export interface SockFilter {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

type Jump = number | string; // 0 = next instruction, or a label
interface Instruction {
  code: number;
  k: number;
  jt?: Jump;
  jf?: Jump;
  label?: string;
}

/** Resolves labels to relative jump offsets (each must fit in 8 bits). */
function assemble(instructions: Instruction[]): SockFilter[] {
  const labels = new Map<string, number>();
  instructions.forEach((ins, i) => {
    if (ins.label) labels.set(ins.label, i);
  });
  const offset = (from: number, to: Jump | undefined): number => {
    if (to === undefined || typeof to === "number") return to ?? 0;
    const target = labels.get(to);
    if (target === undefined) throw new Error(`seccomp: unknown label ${to}`);
    const delta = target - from - 1;
    if (delta < 0 || delta > 255) throw new Error(`seccomp: jump to ${to} out of range (${delta})`);
    return delta;
  };
  return instructions.map((ins, i) => ({
    code: ins.code,
    k: ins.k >>> 0,
    jt: offset(i, ins.jt),
    jf: offset(i, ins.jf),
  }));
}

/** The filter as instructions. */
export function seccompFilter(): SockFilter[] {
  const program: Instruction[] = [
    { code: LD_W_ABS, k: OFFSET_ARCH },
    { code: JMP_JEQ_K, k: AUDIT_ARCH_X86_64, jt: 1 },
    { code: RET_K, k: SECCOMP_RET_KILL_PROCESS },
    { code: LD_W_ABS, k: OFFSET_NR },
    { code: JMP_JGE_K, k: X32_SYSCALL_BIT, jt: "eperm" },
  ];
  for (const nr of Object.values(BLOCKED_SYSCALLS)) program.push({ code: JMP_JEQ_K, k: nr, jt: "eperm" });
  program.push(
    { code: JMP_JEQ_K, k: NR_CLONE, jt: "clone" },
    { code: JMP_JEQ_K, k: NR_CLONE3, jt: "enosys" },
    { code: JMP_JEQ_K, k: NR_IOCTL, jt: "ioctl" },
    { code: RET_K, k: SECCOMP_RET_ALLOW, label: "allow" },
    // Namespace flags are all in the low 32 bits of clone's flags (CLONE_NEWTIME is clone3/unshare only).
    { code: LD_W_ABS, k: argLow(0), label: "clone" },
    { code: JMP_JSET_K, k: CLONE_NAMESPACE_FLAGS, jt: "eperm", jf: "allow2" },
    // The kernel reads ioctl's request as an unsigned int: compare the low 32 bits only.
    { code: LD_W_ABS, k: argLow(1), label: "ioctl" },
    { code: JMP_JEQ_K, k: TIOCSTI, jt: "eperm" },
    { code: JMP_JEQ_K, k: TIOCLINUX, jt: "eperm" },
    { code: RET_K, k: SECCOMP_RET_ALLOW, label: "allow2" },
    { code: RET_K, k: SECCOMP_RET_ERRNO | EPERM, label: "eperm" },
    { code: RET_K, k: SECCOMP_RET_ERRNO | ENOSYS, label: "enosys" },
  );
  return assemble(program);
}

/** The filter as `struct sock_filter[]` bytes (8 per instruction, little-endian), what bwrap --seccomp reads. */
export function seccompProgramBytes(filter: SockFilter[] = seccompFilter()): Buffer {
  const bytes = Buffer.alloc(filter.length * 8);
  filter.forEach((ins, i) => {
    bytes.writeUInt16LE(ins.code, i * 8);
    bytes.writeUInt8(ins.jt, i * 8 + 2);
    bytes.writeUInt8(ins.jf, i * 8 + 3);
    bytes.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return bytes;
}

/** Writes the program to `path` (0644: it is no secret) for `bwrap --seccomp FD`. */
export async function writeSeccompFile(path: string): Promise<void> {
  await writeFile(path, seccompProgramBytes(), { mode: 0o644 });
}

export interface SeccompData {
  nr: number;
  arch?: number;
  /** Syscall arguments (numbers or bigints; the filter reads their low 32 bits). */
  args?: readonly (number | bigint)[];
}

/** Runs the filter on one syscall, as the kernel would; returns the action (e.g. SECCOMP_RET_ERRNO | EPERM). */
export function runSeccompFilter(data: SeccompData, filter: SockFilter[] = seccompFilter()): number {
  const words = new Map<number, number>([
    [OFFSET_NR, data.nr >>> 0],
    [OFFSET_ARCH, (data.arch ?? AUDIT_ARCH_X86_64) >>> 0],
  ]);
  (data.args ?? []).forEach((arg, i) => {
    const value = BigInt(arg) & 0xffffffffffffffffn;
    words.set(argLow(i), Number(value & 0xffffffffn));
    words.set(argLow(i) + 4, Number(value >> 32n));
  });
  let a = 0;
  for (let pc = 0; pc < filter.length; pc++) {
    const { code, jt, jf, k } = filter[pc];
    switch (code) {
      case LD_W_ABS:
        a = words.get(k) ?? 0;
        break;
      case JMP_JEQ_K:
        pc += a === k ? jt : jf;
        break;
      case JMP_JGE_K:
        pc += a >= k ? jt : jf;
        break;
      case JMP_JSET_K:
        pc += (a & k) !== 0 ? jt : jf;
        break;
      case RET_K:
        return k;
      default:
        throw new Error(`seccomp: opcode ${code} not interpreted`);
    }
  }
  throw new Error("seccomp: program fell off its end");
}
