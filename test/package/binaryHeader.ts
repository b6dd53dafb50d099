// What a native binary is built for, from its file header: ELF (e_machine), Mach-O (cputype) or
// PE (COFF Machine), and for ELF whether it links against musl or glibc.

export interface BinaryKind {
  readonly format: 'elf' | 'macho' | 'pe' | 'unknown';
  readonly cpu: 'x64' | 'arm64' | 'other';
  /** ELF only: the C library named by its dynamic section's strings; `static` when none. */
  readonly libc?: 'glibc' | 'musl' | 'static';
}

const ELF_MACHINES: Record<number, BinaryKind['cpu']> = { 0x3e: 'x64', 0xb7: 'arm64' };
const MACHO_CPUS: Record<number, BinaryKind['cpu']> = { 0x01000007: 'x64', 0x0100000c: 'arm64' };
const PE_MACHINES: Record<number, BinaryKind['cpu']> = { 0x8664: 'x64', 0xaa64: 'arm64' };

export function binaryKind(bytes: Buffer): BinaryKind {
  if (bytes.length >= 20 && bytes.readUInt32BE(0) === 0x7f454c46) {
    const libc = bytes.includes('ld-musl') || bytes.includes('libc.musl') ? 'musl' : bytes.includes('libc.so.6') ? 'glibc' : 'static';
    return { format: 'elf', cpu: ELF_MACHINES[bytes.readUInt16LE(18)] ?? 'other', libc };
  }
  // MH_MAGIC_64, little-endian: every 64-bit Mach-O Apple ships.
  if (bytes.length >= 8 && bytes.readUInt32LE(0) === 0xfeedfacf) {
    return { format: 'macho', cpu: MACHO_CPUS[bytes.readUInt32LE(4)] ?? 'other' };
  }
  if (bytes.length >= 0x40 && bytes.toString('latin1', 0, 2) === 'MZ') {
    const pe = bytes.readUInt32LE(0x3c);
    if (bytes.length >= pe + 6 && bytes.readUInt32BE(pe) === 0x50450000) return { format: 'pe', cpu: PE_MACHINES[bytes.readUInt16LE(pe + 4)] ?? 'other' };
  }
  return { format: 'unknown', cpu: 'other' };
}
