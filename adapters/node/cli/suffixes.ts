/**
 * The CLI's names for formats: `--format`'s values (a format, a suffix, an alias) and
 * the `--help` table. The suffixes themselves are the format table's (lib/suffixes.ts):
 * a format added there with a suffix is compressed, decompressed and recognised by the
 * CLI with no change here.
 */
import { FORMATS, type Format } from '../../../lib/formats.js'
import { suffixOf } from '../../../lib/suffixes.js'

/** Other names accepted by `--format`: common aliases of the formats. */
const ALIASES: Readonly<Record<string, Format>> = Object.freeze({ zlib: 'deflate', raw: 'deflate-raw' })

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
