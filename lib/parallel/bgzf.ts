/**
 * BGZF (the SAM/BAM specification, section 4.1: the gzip that `bgzip` and htslib write)
 * cut for parallel decoding: a series of gzip members of at most 64 KiB, each stating
 * its total size in an extra subfield `BC` (BSIZE + 1) and its decoded size in its
 * trailer (ISIZE), so that the members are found, and grouped into jobs of about
 * `target` decoded bytes, from their headers alone; each group decodes on its own
 * (inflate-run.ts, the `members` plan) into at most the size their ISIZEs add up to.
 */
import { readU32LE } from '../endian.js'
import { memberHeader, type MemberHeader } from './gzip-member.js'
import { SizedGroups, type SizedGroup } from './cuts.js'

/** The smallest member: a 10-byte header, an extra field of 6 (XLEN 2 + BC 4 + BSIZE 2 is 8), 2 of deflate data, an 8-byte trailer. */
const MIN_MEMBER = 26

/** A group of whole members: `input[start..end)`, decoding to `size` bytes (their ISIZEs). */
export type MemberGroup = SizedGroup

/** Most data one BGZF block holds (section 4.1). */
const MAX_DATA = 65536

/**
 * Cuts `bytes` into groups of whole BGZF members of about `target` decoded bytes; null
 * unless every member (to the last byte of the input) is a BGZF member that fits, and
 * there are at least two groups.
 */
export function bgzfGroups(bytes: Uint8Array, target: number): MemberGroup[] | null {
  const header: MemberHeader = { dataStart: 0, blockSize: -1 }
  const groups = new SizedGroups(target)
  let pos = 0
  while (pos < bytes.length) {
    if (memberHeader(bytes, pos, bytes.length, header) < 0) return null
    const size = header.blockSize
    if (size < MIN_MEMBER || pos + size > bytes.length || header.dataStart > pos + size - 8) return null
    pos += size
    // Section 4.1: a block holds at most 64 KiB of data; a member claiming more is not
    // BGZF (and must not size an allocation).
    const isize = readU32LE(bytes, pos - 4)
    if (isize > MAX_DATA) return null
    groups.add(pos, isize)
  }
  const list = groups.finish(pos)
  return list.length >= 2 ? list : null
}
