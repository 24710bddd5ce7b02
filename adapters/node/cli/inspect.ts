/**
 * `sluice inspect FILE|URL`: recognises the kind of file by its bytes (magic numbers,
 * Parquet's `PAR1` trailer) and, where the bytes cannot tell (brotli has no magic,
 * an Arrow IPC stream only a length prefix), by its suffix; then reports what its
 * headers say (inspect-codecs.ts, inspect-columnar.ts), as an object for `--json` and
 * as text for people.
 */
import { readFile } from 'node:fs/promises'
import type { RangeSource } from '../../../lib/range-source.js'
import { httpRangeSource } from '../../fetch/http-range-source.js'
import { fileRangeSource } from '../file-range-source.js'
import { CodecError } from '../../../lib/errors.js'
import { transportHeaderAt } from '../../../lib/dictionary-lookup.js'
import { zlibHeaderAt } from '../../../lib/detect.js'
import { inspectBrotli, inspectGzip, inspectLz4, inspectTransport, inspectZlib, inspectZstd, type ZstdInfo } from './inspect-codecs.js'
import { inspectArrow, inspectParquet, type ArrowInfo, type ParquetInfo } from './inspect-columnar.js'
import { formatBytes } from './progress-bar.js'

/** What `inspect` reports: the source, then the kind's fields. */
export type Report = { source: string } & Record<string, unknown> & { kind: string }

const PAR1 = [0x50, 0x41, 0x52, 0x31]
const starts = (b: Uint8Array, magic: readonly number[], at = 0) => magic.every((m, i) => b[at + i] === m)

/** The Parquet footer is read through a range source: a file handle or HTTP ranges. */
async function withRangeSource<T>(target: string, use: (source: RangeSource, tail: Uint8Array) => Promise<T>): Promise<T> {
  if (/^https?:\/\//i.test(target)) {
    const source = await httpRangeSource(target)
    return use(source, await source.read(Math.max(0, source.size - 4), Math.min(4, source.size)))
  }
  const source = await fileRangeSource(target)
  try {
    return await use(source, await source.read(Math.max(0, source.size - 4), Math.min(4, source.size)))
  } finally {
    await source.close()
  }
}

async function wholeBytes(target: string): Promise<Uint8Array> {
  if (/^https?:\/\//i.test(target)) {
    const res = await fetch(target, { headers: { 'accept-encoding': 'identity' } })
    if (!res.ok) throw new Error(`GET ${target}: HTTP ${res.status}`)
    return new Uint8Array(await res.arrayBuffer())
  }
  return new Uint8Array(await readFile(target))
}

/** Inspects `target` (a path or an http(s) URL). */
export async function inspect(target: string): Promise<Report> {
  const name = target.replace(/[?#].*$/, '').toLowerCase()
  // Parquet first, by its trailer, without reading the file.
  const parquet = await withRangeSource(target, async (source, tail) => (starts(tail, PAR1) && source.size >= 12 ? inspectParquet(source) : null)).catch((error: unknown) => {
    if (/\.parquet$/.test(name)) throw error
    return null
  })
  if (parquet) return { source: target, ...parquet }
  const b = await wholeBytes(target)
  if (b.length === 0) throw new CodecError('TRUNCATED', 'inspect', 'the file is empty')
  const report = (info: object): Report => ({ source: target, ...(info as { kind: string }) })
  if (starts(b, [0x1f, 0x8b])) return report(inspectGzip(b))
  if (transportHeaderAt('dcz', b) === 'match') return report(await inspectTransport('dcz', b))
  if (transportHeaderAt('dcb', b) === 'match') return report(await inspectTransport('dcb', b))
  if (starts(b, [0x28, 0xb5, 0x2f, 0xfd]) || (((b[0] ?? 0) & 0xf0) === 0x50 && starts(b, [0x2a, 0x4d, 0x18], 1) && !/\.lz4$/.test(name))) return report(await inspectZstd(b))
  if (starts(b, [0x04, 0x22, 0x4d, 0x18]) || (/\.lz4$/.test(name) && starts(b, [0x2a, 0x4d, 0x18], 1))) return report(inspectLz4(b))
  if (starts(b, [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]) || starts(b, [0xff, 0xff, 0xff, 0xff]) || /\.(arrows?|feather|ipc|stream|arrow_file)$/.test(name)) return report(inspectArrow(b))
  if (/\.br$/.test(name)) return report(inspectBrotli(b))
  if (zlibHeaderAt(b) === 'match' || /\.zz$/.test(name)) return report(inspectZlib(b))
  throw new CodecError('UNSUPPORTED', 'inspect', `not a format inspect knows: it starts ${Array.from(b.subarray(0, 8), (x) => x.toString(16).padStart(2, '0')).join(' ')} (gzip, zlib, zstd, LZ4 frame, brotli by its .br suffix, dcz, dcb, Arrow IPC, Parquet)`)
}

/** `--json`: bigints as strings; byte arrays as hex. */
export function toJson(report: Report): string {
  return JSON.stringify(report, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)
}

const size = (n: unknown) => (typeof n !== 'number' ? 'unknown' : n < 1024 ? `${n} B` : `${formatBytes(n)} (${n} B)`)
const pct = (r: unknown) => (typeof r === 'number' ? `${(r * 100).toFixed(2)}%` : 'unknown')

function zstdLines(z: ZstdInfo, indent = ''): string[] {
  const lines = [
    `${indent}frames: ${z.zstdFrames} zstd, ${z.skippableFrames} skippable; checksums: ${z.checksums ? 'XXH64' : 'no'}`,
    `${indent}compressed: ${size(z.compressedSize)}, decompressed: ${size(z.decompressedSize)}, ratio ${pct(z.ratio)}`,
  ]
  for (const f of z.frames.slice(0, 20)) {
    lines.push(
      f.type === 'skippable'
        ? `${indent}  @${f.offset} skippable frame (magic nibble ${f.variant}), ${f.dataLength} bytes of data`
        : `${indent}  @${f.offset} frame: window ${formatBytes(f.windowSize!)}, dictionary ID ${f.dictionaryId}, content ${size(f.contentSize)}, ${f.blocks} block(s), ${size(f.compressedSize)}, checksum ${f.checksum ?? 'none'}`,
    )
  }
  if (z.frames.length > 20) lines.push(`${indent}  … ${z.frames.length - 20} more frames (see --json)`)
  return lines
}

/** The human summary. */
export function toText(r: Report): string {
  const lines = [`${r.source}: ${r.kind}`]
  const g = r as Record<string, any>
  switch (r.kind) {
    case 'gzip':
      lines.push(
        `  method ${g.method} (deflate), flags ${Object.entries(g.flags).filter(([, v]) => v).map(([k]) => k).join(', ') || 'none'}`,
        `  name: ${g.name ?? '(none)'}, comment: ${g.comment ?? '(none)'}, mtime: ${g.mtimeIso ?? '(not set)'}`,
        `  extra flags: ${g.extraFlags} (${g.extraFlagsText}), OS: ${g.os} (${g.osName}), header ${g.headerLength} bytes`,
        `  compressed: ${size(g.compressedSize)}, uncompressed (ISIZE, mod 2^32): ${size(g.uncompressedSizeMod32)}, ratio ${pct(g.ratio)}, CRC-32 ${g.crc32}`,
      )
      break
    case 'zlib':
      lines.push(`  window ${formatBytes(g.windowSize)}, level ${g.level} (${g.levelText}), preset dictionary: ${g.dictionaryId ?? 'none'}, Adler-32 ${g.adler32}`, `  compressed: ${size(g.compressedSize)}`)
      break
    case 'zstd':
      lines.push(...zstdLines(g as ZstdInfo, '  '))
      break
    case 'lz4':
      lines.push(`  compressed: ${size(g.compressedSize)}, decompressed: ${size(g.decompressedSize)}, ratio ${pct(g.ratio)}`)
      for (const f of g.frames.slice(0, 20)) {
        if (f.type === 'skippable') lines.push(`  @${f.offset} skippable frame, ${f.dataLength} bytes`)
        else {
          const flags = Object.entries(f.flags).filter(([, v]) => v).map(([k]) => k).join(', ') || 'none'
          lines.push(`  @${f.offset} frame v${f.version}: flags ${flags}; block max ${formatBytes(f.blockMaxSize)}; content ${size(f.contentSize)}; ${f.blocks} block(s) (${f.uncompressedBlocks} stored); content checksum ${f.contentChecksum ?? 'none'}`)
        }
      }
      break
    case 'brotli':
      lines.push(`  window: ${g.windowBits === null ? 'large-window brotli (not RFC 7932)' : `2^${g.windowBits} - 16 = ${formatBytes(g.windowSize)}`}; compressed: ${size(g.compressedSize)} (brotli has no size header)`)
      break
    case 'dcz':
    case 'dcb':
      lines.push(`  RFC 9842 ${r.kind === 'dcz' ? 'dictionary-compressed zstd (section 5)' : 'dictionary-compressed brotli (section 4)'}: dictionary SHA-256 ${g.dictionarySha256}`, `  header ${g.headerLength} bytes, then:`)
      if (g.inner.kind === 'zstd') lines.push(...zstdLines(g.inner, '    '))
      else lines.push(`    brotli, window 2^${g.inner.windowBits}`)
      break
    case 'arrow-stream':
    case 'arrow-file': {
      const a = r as unknown as ArrowInfo
      lines.push(`  metadata ${a.metadataVersion}; ${a.recordBatches} record batch(es), ${a.dictionaryBatches} dictionary batch(es), ${a.rows} rows`)
      lines.push(`  body compression: ${a.compression.length ? a.compression.join(', ') : 'none'}; bodies ${size(a.bodyBytes)}, uncompressed ${size(a.uncompressedBodyBytes)}`)
      if (a.footer) lines.push(`  file footer: ${a.footer.recordBatches} record batch block(s), ${a.footer.dictionaries} dictionary block(s)`)
      lines.push('  schema:')
      for (const f of a.schema) lines.push(`    ${f.name}: ${f.type}${f.nullable ? '' : ' not null'}${f.dictionary ? ` (dictionary ${f.dictionary.id}, ${f.dictionary.indexType} indices)` : ''}`)
      for (const [i, b] of a.batches.slice(0, 20).entries()) lines.push(`  batch ${i}: ${b.type}${b.dictionaryId !== undefined ? ` ${b.dictionaryId}${b.isDelta ? ' (delta)' : ''}` : ''}, ${b.rows} rows, body ${formatBytes(b.bodyLength)}${b.compression ? ` ${b.compression} -> ${formatBytes(b.uncompressedBodyLength)}` : ''}`)
      if (a.batches.length > 20) lines.push(`  … ${a.batches.length - 20} more batches (see --json)`)
      break
    }
    case 'parquet': {
      const p = r as unknown as ParquetInfo
      lines.push(`  format version ${p.version}, created by ${p.createdBy ?? '(unknown)'}`)
      lines.push(`  ${p.rows} rows in ${p.rowGroups.length} row group(s); footer ${formatBytes(p.footerLength)}, read in ${p.reads} range read(s)`)
      lines.push(`  codecs: ${p.codecs.join(', ') || 'none'}`)
      lines.push('  schema:', ...p.schema.map((l) => `    ${l}`))
      for (const [i, g2] of p.rowGroups.slice(0, 10).entries()) lines.push(`  row group ${i}: ${g2.rows} rows, ${g2.columns} columns, ${formatBytes(g2.compressedSize)} compressed, ${formatBytes(g2.totalByteSize)} uncompressed`)
      if (p.rowGroups.length > 10) lines.push(`  … ${p.rowGroups.length - 10} more row groups (see --json)`)
      lines.push('  columns (over all row groups):')
      for (const c of p.columns) {
        const stats = c.nullCount === null && c.min === null && c.max === null ? 'no statistics' : `nulls ${c.nullCount ?? '?'}, min ${JSON.stringify(c.min)}, max ${JSON.stringify(c.max)}`
        lines.push(`    ${c.path} ${c.type} ${c.codecs.join('/')} ${formatBytes(c.compressedSize)} of ${formatBytes(c.uncompressedSize)}; ${c.encodings.join(', ')}; ${stats}`)
      }
      if (p.keyValueMetadata.length) lines.push(`  key/value metadata: ${p.keyValueMetadata.join(', ')}`)
      break
    }
  }
  if (typeof g.error === 'string') lines.push(`  problem: ${g.error}`)
  return lines.join('\n')
}
