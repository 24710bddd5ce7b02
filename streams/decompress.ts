/**
 * Auto-detecting decompression (`decompress()`): the format named by the first bytes
 * (lib/detect.ts), or given, decoded by the sniffing stream (sniffing-stream.ts); for RFC
 * 9842's dcz and dcb, the dictionary their header names, from `dictionaries` or
 * `dictionary`.
 */
import type { Format } from '../lib/codec.js'
import { checkDeferredOptions, checkDictionary } from '../lib/codec-options.js'
import { DETECTED_DESCRIPTION, detectFormat, hexHead } from '../lib/detect.js'
import { DictionaryFinder, hashHex, transportHash, transportHeaderAt, transportHeaderLength, type DictionariesOption } from '../lib/dictionary-lookup.js'
import { CodecError } from '../lib/errors.js'
import { DETECTED_FORMATS, isDictionaryTransport, isFormat, takesDictionary, TRANSPORT_FORMATS, transportOf, type TransportFormat } from '../lib/formats.js'
import { checkThreadsForm, describe } from '../lib/options.js'
import { STREAM_SURFACE, type Surface } from '../lib/prepare.js'
import type { AnyFormatDecodeOptions, DecodeMachineOptions } from '../lib/option-types.js'
import type { BinaryInput } from '../lib/bytes.js'
import { decodeStream } from './factories.js'
import type { StreamOptions } from './codec-stream.js'
import type { DecodeThreadOptions } from './thread-options.js'
import { sniffingStream, type Decide, type Decision, type Pair } from './sniffing-stream.js'

/**
 * The options of `decompress()`: those of `decodeStream` for any format it may detect
 * ({@link AnyFormatDecodeOptions}: each detected format gets its own), the machine's
 * ({@link DecodeMachineOptions}), the stream's ({@link StreamOptions}), `threads`
 * ({@link DecodeThreadOptions}), and these.
 */
export interface DecompressOptions extends AnyFormatDecodeOptions, DecodeMachineOptions, StreamOptions, DecodeThreadOptions {
  /**
   * Skips detection and decodes this format. Needed for brotli, which has no magic
   * number (RFC 7932 defines none), and for raw deflate (RFC 1951), which has none either.
   */
  format?: Format
  /**
   * When the input is not a recognised format (or is empty), pass it through unchanged
   * instead of erroring with `UNSUPPORTED` (or `TRUNCATED` for empty input). Ignored
   * when `format` is given.
   */
  passthrough?: boolean
  /**
   * A dictionary for the detected format, where it takes one: zlib (FDICT, checked by its
   * DICTID), zstd (trained or raw content), and RFC 9842's dcz and dcb (checked by the
   * SHA-256 in their header). gzip and LZ4 input, which have none, decode without it.
   */
  dictionary?: BinaryInput
  /**
   * Dictionaries for dcz and dcb input, chosen by the SHA-256 its header names: an array
   * (hashed once) or a lookup `(sha256) => dictionary | undefined` (may be async), as
   * `decodeResponse()` takes them. Input naming a dictionary neither this nor `dictionary`
   * provides errors with `UNSUPPORTED`, naming the hash.
   */
  dictionaries?: DictionariesOption
}

/** The name of a transport in messages: `dictionary-compressed zstd, RFC 9842 §5`. */
const transportName = (t: TransportFormat): string => `dictionary-compressed ${transportOf(t).inner}, RFC 9842 §${transportOf(t).section}`
/** The `dictionary` option checked (and copied once) when decompress() is called. */
function checkedDictionary(value: unknown): Uint8Array | undefined {
  if (value === undefined) return undefined
  try {
    return checkDictionary('zstd', value)
  } catch {
    throw new CodecError('INVALID_OPTION', 'decompress', `dictionary must be an ArrayBuffer or an ArrayBufferView, got ${value === null ? 'null' : typeof value}`)
  }
}

/**
 * The decision for dcz/dcb input whose header is in `head`: the dictionary its hash
 * names, from `dictionaries` or else `dictionary` (whose hash the decoder then checks,
 * `CHECKSUM_MISMATCH` when it differs); `UNSUPPORTED` naming the format and the hash
 * when neither gives one.
 */
async function transportDecision(format: TransportFormat, head: Uint8Array, finder: DictionaryFinder | null, dictionary: Uint8Array | undefined): Promise<Decision> {
  const hash = transportHash(format, head)
  const what = `${format} input (${transportName(format)})`
  if (finder) {
    try {
      return { kind: 'decode', format, options: { dictionary: await finder.find(what, hash) } }
    } catch (error) {
      if (dictionary === undefined || !(error instanceof CodecError) || error.code !== 'UNSUPPORTED') throw error
    }
  }
  if (dictionary === undefined) {
    throw new CodecError('UNSUPPORTED', 'decompress', `${what} needs the dictionary with SHA-256 ${hashHex(hash)}: pass it as the dictionary option, or in dictionaries`)
  }
  return { kind: 'decode', format, options: { dictionary } }
}

/**
 * An auto-detecting decoder: gzip, zlib-wrapped deflate, zstd, LZ4 frame and RFC 9842's
 * dcz and dcb are recognised by their first bytes (zstd/LZ4 also after leading
 * skippable frames). brotli and raw deflate have no magic number: pass `format`.
 * Unknown input errors with `UNSUPPORTED` (the first bytes in hex in the message), empty
 * input with `TRUNCATED`, unless `passthrough: true`, which passes such input through
 * unchanged. dcz and dcb decode with the dictionary their header names (`dictionaries`,
 * `dictionary`); without it they error with `UNSUPPORTED`, naming the format and hash.
 *
 * The other options are those of `decodeStream` (`maxOutputBytes`, `signal`, `streams`,
 * `chunkSize`, `engine`, `threads`, format-specific ones) and apply to the detected
 * format's stream; `maxOutputBytes` also bounds passed-through output.
 */
export function decompress(options: DecompressOptions = {}): Pair {
  const { format, passthrough, dictionary: given, dictionaries, ...rest } = options
  if (format !== undefined && !isFormat(format)) throw new CodecError('UNKNOWN_FORMAT', String(format), 'unknown format given to decompress()')
  const dictionary = checkedDictionary(given)
  const finder = dictionaries === undefined ? null : new DictionaryFinder(dictionaries, 'decompress')
  if (format !== undefined) {
    if (isDictionaryTransport(format) && finder) {
      // The dictionary is known once the header is in: sniff that much.
      const t: TransportFormat = format
      const { shared, ownFor } = checkDeferredOptions('decompress', [t], 'decode', rest, STREAM_SURFACE)
      return sniffingStream(
        (head, ended) => {
          const match = transportHeaderAt(t, head)
          if (match === 'match') return transportDecision(t, head, finder, dictionary).then((decision) => withOptions(decision, ownFor(t)))
          if (match === 'partial' && !ended) return null
          throw new CodecError(match === 'partial' ? 'TRUNCATED' : 'INVALID_DATA', t, match === 'partial' ? `input ended after ${head.length} bytes, inside the ${transportHeaderLength(t)}-byte header (RFC 9842)` : `not a ${t} stream: first bytes ${hexHead(head)} (RFC 9842)`, match === 'partial' ? head.length : 0)
        },
        shared,
        'decompress',
      )
    }
    return decodeStream(format, dictionary === undefined ? rest : { ...rest, dictionary }) as Pair
  }
  if (passthrough !== undefined && typeof passthrough !== 'boolean') {
    throw new CodecError('INVALID_OPTION', 'decompress', `passthrough must be a boolean, got ${describe(passthrough)}`)
  }
  // Checked now; each detected format gets the options it takes (`threads` too: the
  // formats that split decode in parallel with it, the others on one thread).
  checkThreadsForm('decompress', rest.threads)
  const { shared, ownFor } = checkDeferredOptions('decompress', [...DETECTED_FORMATS, ...TRANSPORT_FORMATS], 'decode', rest, DETECT_SURFACE)
  const decide: Decide = (head, ended) => {
    const found = detectFormat(head, ended)
    if (found === null) return null
    if (found === 'unknown' || found === 'truncated') {
      if (passthrough) return { kind: 'pass' }
      if (found === 'unknown') {
        throw new CodecError('UNSUPPORTED', 'decompress', `unrecognised input, first bytes ${hexHead(head)}; expected ${DETECTED_DESCRIPTION}; brotli and raw deflate have no magic number: pass { format }`)
      }
      throw new CodecError('TRUNCATED', 'decompress', head.length === 0 ? 'empty input: no format to detect' : `input ended after ${head.length} bytes (${hexHead(head)}), inside a magic number or an RFC 9842 header`, head.length)
    }
    if (isDictionaryTransport(found)) return transportDecision(found, head, finder, dictionary).then((decision) => withOptions(decision, ownFor(found)))
    return { kind: 'decode', format: found, options: dictionary !== undefined && takesDictionary(found) ? { ...ownFor(found), dictionary } : ownFor(found) }
  }
  return sniffingStream(decide, shared, 'decompress')
}

/** The keys `decompress()` takes besides the codecs' when it detects the format: the streams' and `threads`. */
const DETECT_SURFACE: Surface = Object.freeze({ ...STREAM_SURFACE, shell: Object.freeze(['signal', 'streams', 'threads']) })

/** A decision with the detected format's own options added. */
function withOptions(decision: Decision, own: Record<string, unknown>): Decision {
  return decision.kind === 'decode' ? { ...decision, options: { ...own, ...decision.options } } : decision
}
