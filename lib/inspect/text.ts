/**
 * The inspect report as text for people, as `sluice inspect` prints it (without
 * `--json`): sizes in binary units with the bytes beside them, ratios as lib/ratio.ts
 * states them.
 */
import { formatBytes } from '../format-bytes.js'
import { formatRatio } from '../ratio.js'
import type { ZstdInfo } from './codecs.js'
import type { ArrowInfo, ParquetInfo } from './columnar.js'
import type { InspectReport } from './inspect.js'

const size = (n: unknown) => (typeof n !== 'number' ? 'unknown' : n < 1024 ? `${n} B` : `${formatBytes(n)} (${n} B)`)
const ratio = (original: unknown, compressed: unknown) => formatRatio(original as number | null, compressed as number | null)

function zstdLines(z: ZstdInfo, indent = ''): string[] {
  const lines = [
    `${indent}frames: ${z.zstdFrames} zstd, ${z.skippableFrames} skippable; checksums: ${z.checksums ? 'XXH64' : 'no'}`,
    `${indent}compressed: ${size(z.compressedSize)}, decompressed: ${size(z.decompressedSize)}, ratio ${ratio(z.decompressedSize, z.compressedSize)}`,
  ]
  const seekable = z.seekable
  if (seekable?.error !== undefined) lines.push(`${indent}seekable archive? it ends with the seekable magic, but: ${seekable.error}`)
  else if (seekable) lines.push(`${indent}seekable archive: ${seekable.frames} frames in its seek table (frames of up to ${formatBytes(seekable.largestFrame)}, ${size(seekable.decompressedSize)} in all), the table ${seekable.tableBytes} bytes at @${seekable.tableOffset}${seekable.checksums ? ' with frame checksums' : ''}`)
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

/**
 * The report as `sluice inspect` prints it for people: `source` (the file's name or URL)
 * and its kind, then what the headers say, a line per frame, batch or row group (the
 * first 20 or 10, with a count of the rest).
 */
export function inspectText(r: InspectReport, source: string): string {
  const lines = [`${source}: ${r.kind}`]
  // The kinds' fields, read as the switch below knows them by `kind`.
  const g = r as unknown as Record<string, any>
  switch (r.kind) {
    case 'gzip':
      lines.push(
        `  method ${g.method} (deflate), flags ${Object.entries(g.flags).filter(([, v]) => v).map(([k]) => k).join(', ') || 'none'}`,
        `  name: ${g.name ?? '(none)'}, comment: ${g.comment ?? '(none)'}, mtime: ${g.mtimeIso ?? '(not set)'}`,
        `  extra flags: ${g.extraFlags} (${g.extraFlagsText}), OS: ${g.os} (${g.osName}), header ${g.headerLength} bytes`,
        `  compressed: ${size(g.compressedSize)}, uncompressed (ISIZE, mod 2^32): ${size(g.uncompressedSizeMod32)}, ratio ${ratio(g.uncompressedSizeMod32, g.compressedSize)}, CRC-32 ${g.crc32}`,
      )
      break
    case 'zlib':
      lines.push(`  window ${formatBytes(g.windowSize)}, level ${g.level} (${g.levelText}), preset dictionary: ${g.dictionaryId ?? 'none'}, Adler-32 ${g.adler32}`, `  compressed: ${size(g.compressedSize)}`)
      break
    case 'zstd':
      lines.push(...zstdLines(g as ZstdInfo, '  '))
      break
    case 'lz4':
      lines.push(`  compressed: ${size(g.compressedSize)}, decompressed: ${size(g.decompressedSize)}, ratio ${ratio(g.decompressedSize, g.compressedSize)}`)
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
      const a = r as ArrowInfo
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
      const p = r as ParquetInfo
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
