/**
 * File name suffixes of the formats, as the reference tools write them. Typed over
 * every `Format` of the format table (lib/formats.ts): a format added there does not
 * compile here until its suffix (or `null`, for formats without a file convention) is
 * added, so the CLI's suffixes cannot fall behind the formats.
 */
import type { Format } from '../../../lib/codec.js'
import { FORMATS } from '../../../lib/formats.js'

const SUFFIX: Readonly<Record<Format, string | null>> = Object.freeze({
  gzip: '.gz', // gzip(1)
  deflate: '.zz', // zlib streams: pigz -z, qpdf
  'deflate-raw': null, // no convention
  brotli: '.br', // brotli(1)
  zstd: '.zst', // zstd(1)
  lz4: '.lz4', // lz4(1)
  'lz4-block': null, // no framing: not a file format
  dcz: '.dcz', // RFC 9842 names no suffix; the coding's name, as for the others
  dcb: '.dcb',
})

/** Other names accepted by `--format`: the suffixes without their dot, and common aliases. */
const ALIASES: Readonly<Record<string, Format>> = Object.freeze({ zlib: 'deflate', br: 'brotli', zst: 'zstd', gz: 'gzip', zz: 'deflate', raw: 'deflate-raw' })

/** The suffix `format`'s files carry, or null when it has none. */
export function suffixOf(format: Format): string | null {
  return SUFFIX[format]
}

/** The format whose suffix ends `name` (case-insensitive), and the name without it. */
export function formatOfName(name: string): { format: Format; stem: string } | null {
  const lower = name.toLowerCase()
  for (const format of FORMATS) {
    const suffix = SUFFIX[format]
    if (suffix && lower.endsWith(suffix) && lower.length > suffix.length && !lower.endsWith('/' + suffix)) return { format, stem: name.slice(0, -suffix.length) }
  }
  return null
}

/** The format `--format` names: a format name, a suffix without its dot, or an alias. */
export function formatOfOption(value: string): Format | null {
  const lower = value.toLowerCase().replace(/^\./, '')
  if ((FORMATS as readonly string[]).includes(lower)) return lower as Format
  if (Object.prototype.hasOwnProperty.call(ALIASES, lower)) return ALIASES[lower]!
  for (const format of FORMATS) if (SUFFIX[format] === `.${lower}`) return format
  return null
}

/** The `--help` table: each format with its suffix. */
export function suffixTable(): string {
  return FORMATS.map((f) => `  ${f.padEnd(12)} ${SUFFIX[f] ?? '(none: use -c or -o)'}`).join('\n')
}
