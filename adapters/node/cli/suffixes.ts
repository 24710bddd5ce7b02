/**
 * File name suffixes of the formats, from the format table (lib/formats.ts, each row's
 * `suffix`): a format added there with a suffix is compressed, decompressed and
 * recognised by the CLI with no change here.
 */
import { FORMATS, rowOf, type Format } from '../../../lib/formats.js'

/** Other names accepted by `--format`: common aliases of the formats. */
const ALIASES: Readonly<Record<string, Format>> = Object.freeze({ zlib: 'deflate', raw: 'deflate-raw' })

/** The suffix `format`'s files carry, or null when it has none. */
export function suffixOf(format: Format): string | null {
  return rowOf(format).suffix ?? null
}

/** The format whose suffix ends `name` (case-insensitive), and the name without it. */
export function formatOfName(name: string): { format: Format; stem: string } | null {
  const lower = name.toLowerCase()
  for (const format of FORMATS) {
    const suffix = suffixOf(format)
    if (suffix && lower.endsWith(suffix) && lower.length > suffix.length && !/[\\/]$/.test(lower.slice(0, -suffix.length))) return { format, stem: name.slice(0, -suffix.length) }
  }
  return null
}

/** The format `--format` names: a format name, a suffix with or without its dot, or an alias. */
export function formatOfOption(value: string): Format | null {
  const lower = value.toLowerCase()
  if ((FORMATS as readonly string[]).includes(lower)) return lower as Format
  if (Object.prototype.hasOwnProperty.call(ALIASES, lower)) return ALIASES[lower]!
  const dotted = lower.startsWith('.') ? lower : `.${lower}`
  for (const format of FORMATS) if (suffixOf(format) === dotted) return format
  return null
}

/** The `--help` table: each format with its suffix. */
export function suffixTable(): string {
  return FORMATS.map((f) => `  ${f.padEnd(12)} ${suffixOf(f) ?? '(no suffix: use -c or -o)'}`).join('\n')
}
