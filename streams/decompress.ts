/**
 * Auto-detecting decompression: a `{ writable, readable }` pair that buffers the first
 * bytes until they name a format, then hands them (and every later chunk) to the
 * ordinary decoding stream of that format (`decodeStream` in factories.ts). Nothing is
 * decoded here: this module only sniffs, forwards with backpressure and ties the two
 * pairs' errors, cancellation and aborts together.
 */
import type { Format } from '../lib/codec.js'
import { toBytes } from '../lib/bytes.js'
import { CodecError } from '../lib/errors.js'
import { checkChunkSize, checkDeferredOptions, checkDictionary, checkMaxOutput, checkThreadsForm, DETECTED_FORMATS, detectOf, isDictionaryTransport, isFormat, takesDictionary, TRANSPORT_FORMATS, transportOf, type TransportFormat } from '../lib/formats.js'
import { DictionaryFinder, hashHex, TRANSPORT_HASH_BYTES, transportHash, transportHeaderAt, transportHeaderLength, type DictionariesOption } from '../lib/dictionary-lookup.js'
import { classes, type StreamClasses } from './codec-stream.js'
import { decodeStream, type DecodeStreamOptions } from './factories.js'
import { STREAM_SURFACE, type Surface } from '../lib/prepare.js'
import { describe } from '../lib/options.js'

export interface DecompressOptions extends DecodeStreamOptions {
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
  dictionary?: DecodeStreamOptions['dictionary']
  /**
   * Dictionaries for dcz and dcb input, chosen by the SHA-256 its header names: an array
   * (hashed once) or a lookup `(sha256) => dictionary | undefined` (may be async), as
   * `decodeResponse()` takes them. Input naming a dictionary neither this nor `dictionary`
   * provides errors with `UNSUPPORTED`, naming the hash.
   */
  dictionaries?: DictionariesOption
}

/**
 * A readable/writable pair, as the factories return (not a `TransformStream`).
 * @inline
 */
type Pair = ReadableWritablePair<Uint8Array, BufferSource>

/** What a sniffing stage decided to do with its input. */
export type Decision = { kind: 'decode'; format: Format; options?: Record<string, unknown> } | { kind: 'pass' }

/**
 * Looks at the first bytes (`head`, all buffered so far; `ended` when no more will come)
 * and decides, or returns `null` to see more. May throw a `CodecError` (unknown input).
 */
export type Decide = (head: Uint8Array, ended: boolean) => Decision | null | Promise<Decision | null>

/**
 * The most bytes buffered before a decision. Only skippable frames (below) can make
 * detection look further than 4 bytes, and their size field allows up to 4 GiB
 * (RFC 8878 §3.1.2): buffering that much before decoding a byte would turn a small
 * header into a memory sink. 64 KiB covers the skippable frames met in practice (pzstd
 * puts a 12-byte one before each frame; metadata frames are small); past it we pick
 * zstd, as for input made only of skippable frames.
 */
export const SNIFF_LIMIT = 64 * 1024

/** The magic number a format starts with (its table row's `detect.magic`). */
function magicOf(format: Format): readonly number[] {
  const magic = detectOf(format)?.magic
  if (!Array.isArray(magic)) throw new Error(`${format} has no magic number in the format table`)
  return magic
}

/** Formats recognised by a magic number at the very start (gzip). */
const AT_START: readonly Format[] = /* @__PURE__ */ DETECTED_FORMATS.filter((f) => Array.isArray(detectOf(f)!.magic) && !detectOf(f)!.frames)
/** Formats recognised by the zlib header check (deflate). */
const ZLIB: readonly Format[] = /* @__PURE__ */ DETECTED_FORMATS.filter((f) => detectOf(f)!.magic === 'zlib header')
/** Formats made of frames, recognised also after leading skippable frames (zstd, LZ4). */
const FRAMED: readonly Format[] = /* @__PURE__ */ DETECTED_FORMATS.filter((f) => detectOf(f)!.frames === true)

type Match = 'match' | 'partial' | 'no'

/** Whether `magic` is at `head[pos..]`, or could be once more bytes arrive. */
function magicAt(head: Uint8Array, pos: number, magic: readonly number[]): Match {
  for (let i = 0; i < magic.length; i++) {
    if (pos + i >= head.length) return 'partial'
    if (head[pos + i] !== magic[i]) return 'no'
  }
  return 'match'
}

/**
 * A skippable frame's magic, 0x184D2A50..0x184D2A5F little-endian: shared by zstd
 * (RFC 8878 §3.1.2) and the LZ4 frame format, so it does not tell them apart.
 */
function skippableAt(head: Uint8Array, pos: number): Match {
  if (pos >= head.length) return 'partial'
  if ((head[pos]! & 0xf0) !== 0x50) return 'no'
  return magicAt(head, pos + 1, [0x2a, 0x4d, 0x18])
}

/**
 * A zlib header (RFC 1950 §2.2): CM = 8 (deflate), CINFO <= 7 (window <= 32 KiB), and
 * CMF*256 + FLG a multiple of 31. Two bytes with a 1-in-31 check are a weak signature
 * (text starting with "x^" or "x\x01" passes it), so without a preset dictionary the
 * third byte is checked as well: the first deflate block's BTYPE must not be the
 * reserved 11 (RFC 1951 §3.2.3), which no valid stream starts with.
 */
export function zlibHeaderAt(head: Uint8Array): Match {
  if (head.length < 1) return 'partial'
  const cmf = head[0]!
  if ((cmf & 0x0f) !== 8 || cmf >> 4 > 7) return 'no'
  if (head.length < 2) return 'partial'
  const flg = head[1]!
  if ((cmf * 256 + flg) % 31 !== 0) return 'no'
  // FDICT: a 4-byte dictionary id precedes the data; the decoder reports it as UNSUPPORTED.
  if (flg & 0x20) return 'match'
  if (head.length < 3) return 'partial'
  return ((head[2]! >> 1) & 3) === 3 ? 'no' : 'match'
}

/**
 * Whether `head` starts as `format` does (for a declared layer, e.g. an HTTP coding): its
 * magic number (the format table's `detect`), for framed formats also a skippable frame,
 * the zlib header check for deflate; `null` for a format without a magic number.
 */
export function headerAt(format: Format, head: Uint8Array): Match | null {
  const detect = detectOf(format)
  if (detect === undefined) return null
  if (detect.magic === 'zlib header') return zlibHeaderAt(head)
  const m = magicAt(head, 0, detect.magic)
  if (!detect.frames) return m
  const s = skippableAt(head, 0)
  if (m === 'match' || s === 'match') return 'match'
  return m === 'partial' || s === 'partial' ? 'partial' : 'no'
}

/** The first bytes in hex, for messages. */
export function hexHead(head: Uint8Array, n = 16): string {
  const parts: string[] = []
  for (let i = 0; i < Math.min(n, head.length); i++) parts.push(head[i]!.toString(16).padStart(2, '0'))
  return parts.join(' ') + (head.length > n ? ' ...' : '')
}

/**
 * Names the format of `head`: a format, `'unknown'`, `'truncated'` (input ended inside
 * what could still have been a magic number or an RFC 9842 header, or was empty) or
 * `null` (need more bytes).
 *
 * dcz and dcb are named once their whole header (magic and hash) is in. dcz's header is
 * also a valid zstd skippable frame (magic 0x184D2A5E, 32 bytes): a zstd stream starting
 * with exactly that frame is taken as dcz, as RFC 9842 §5 chose it to be; any other
 * skippable frame leads to zstd as before (`format: 'zstd'` forces it).
 */
export function detectFormat(head: Uint8Array, ended: boolean): Format | 'unknown' | 'truncated' | null {
  let partialAtStart = false
  for (const f of AT_START) {
    const match = magicAt(head, 0, magicOf(f))
    if (match === 'match') return f
    if (match === 'partial') partialAtStart = true
  }
  for (const f of ZLIB) {
    const match = zlibHeaderAt(head)
    if (match === 'match') return f
    if (match === 'partial') partialAtStart = true
  }
  for (const t of TRANSPORT_FORMATS) {
    const match = transportHeaderAt(t, head)
    if (match === 'match') return t
    // The whole magic seen, the hash not yet.
    if (match === 'partial' && head.length >= transportHeaderLength(t) - TRANSPORT_HASH_BYTES) return ended ? 'truncated' : null
    if (match === 'partial') partialAtStart = true
  }
  let pos = 0
  let sawSkippable = false
  for (;;) {
    let partial = false
    for (const f of FRAMED) {
      const match = magicAt(head, pos, magicOf(f))
      if (match === 'match') return f
      if (match === 'partial') partial = true
    }
    const skip = skippableAt(head, pos)
    if (skip === 'match') {
      sawSkippable = true
      // 4-byte magic, 4-byte little-endian payload size, payload (RFC 8878 §3.1.2).
      if (pos + 8 > SNIFF_LIMIT) return 'zstd'
      if (pos + 8 > head.length) {
        if (ended) return 'zstd' // the decoder reports the truncated frame
        return null
      }
      const size = (head[pos + 4]! | (head[pos + 5]! << 8) | (head[pos + 6]! << 16)) + head[pos + 7]! * 2 ** 24
      const next = pos + 8 + size
      if (next > SNIFF_LIMIT) return 'zstd' // the next magic lies beyond what we buffer
      if (next > head.length) return ended ? 'zstd' : null
      pos = next
      continue
    }
    if (skip === 'partial') partial = true
    if (sawSkippable) {
      // Only zstd and LZ4 have skippable frames; with only skippable frames seen (or an
      // unknown frame after them) zstd decodes them and reports the rest at its offset.
      if (partial && !ended && head.length < SNIFF_LIMIT) return null
      return 'zstd'
    }
    if (partial || partialAtStart) return ended ? 'truncated' : null
    return 'unknown'
  }
}

const hexOf = (bytes: readonly number[]): string => bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ')

/** What `decompress()` recognises, for the message on unrecognised input (from the format table). */
const DETECTED: string = /* @__PURE__ */ (() => {
  const names = [
    ...DETECTED_FORMATS.map((f) => {
      const d = detectOf(f)!
      return Array.isArray(d.magic) ? `${d.label} (${hexOf(d.magic)})` : d.label
    }),
    ...TRANSPORT_FORMATS.map((t) => `${t} (${hexOf(transportOf(t).magic)})`),
  ]
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`
})()

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
  // Checked now; each detected format gets the options it takes (`threads` too: zstd and
  // LZ4 decode in parallel with it, the others have nothing to split).
  checkThreadsForm('decompress', rest.threads)
  const { shared, ownFor } = checkDeferredOptions('decompress', [...DETECTED_FORMATS, ...TRANSPORT_FORMATS], 'decode', rest, DETECT_SURFACE)
  const decide: Decide = (head, ended) => {
    const found = detectFormat(head, ended)
    if (found === null) return null
    if (found === 'unknown' || found === 'truncated') {
      if (passthrough) return { kind: 'pass' }
      if (found === 'unknown') {
        throw new CodecError('UNSUPPORTED', 'decompress', `unrecognised input, first bytes ${hexHead(head)}; expected ${DETECTED}; brotli and raw deflate have no magic number: pass { format }`)
      }
      throw new CodecError('TRUNCATED', 'decompress', head.length === 0 ? 'empty input: no format to detect' : `input ended after ${head.length} bytes (${hexHead(head)}), inside a magic number or an RFC 9842 header`, head.length)
    }
    if (isDictionaryTransport(found)) return transportDecision(found, head, finder, dictionary).then((decision) => withOptions(decision, ownFor(found)))
    return { kind: 'decode', format: found, options: dictionary !== undefined && takesDictionary(found) ? { ...ownFor(found), dictionary } : ownFor(found) }
  }
  return sniffingStream(decide, shared, 'decompress')
}

/** The keys `decompress()` takes besides the codecs' when it detects the format: the streams' and `threads`. */
const DETECT_SURFACE: Surface = Object.freeze({ machine: true, shell: Object.freeze(['signal', 'streams', 'threads']) })

/** A decision with the detected format's own options added. */
function withOptions(decision: Decision, own: Record<string, unknown>): Decision {
  return decision.kind === 'decode' ? { ...decision, options: { ...own, ...decision.options } } : decision
}

/**
 * The composition shell: buffers input (copied, at most `SNIFF_LIMIT` bytes) until
 * `decide` says what it is, then either decodes it through `decodeStream(format)` or
 * passes it through. Used by `decompress()` and by the HTTP adapter's layers.
 *
 * - Backpressure: after the decision, each write resolves only once the inner stream
 *   has taken the chunk (its writer's `ready`, then `write`, awaited), and the readable
 *   side reads from the inner one only when its own consumer asks (high-water mark 0).
 * - Errors: an inner error errors both outer sides; cancelling the readable or aborting
 *   the writable (or `signal`) cancels the inner stream, which frees its codec.
 */
export function sniffingStream(decide: Decide, options: DecodeStreamOptions, label: string): Pair {
  return new SniffingStream(decide, options, label) as Pair
}

/** A chunk offered by a write in pass mode, waiting for a pull to take it. */
interface Offer {
  bytes: Uint8Array
  resolve: () => void
  reject: (e: unknown) => void
}

/** The `sniffingStream()` pair (see there). */
class SniffingStream {
  readonly readable: ReadableStream<Uint8Array>
  readonly writable: WritableStream<BufferSource>

  readonly #decide: Decide
  readonly #label: string
  readonly #signal: AbortSignal | undefined
  readonly #streams: StreamClasses | undefined
  /** The options for the inner decoding stream (all but `signal` and `streams`). */
  readonly #innerOptions: DecodeStreamOptions
  /** Bounds passed-through output (decoded output is the inner stream's to bound). */
  readonly #maxOutputBytes: number
  #rc!: ReadableStreamDefaultController<Uint8Array>
  #wc!: WritableStreamDefaultController
  /** Settled (closed, errored, cancelled or aborted): nothing more happens. */
  #finished = false
  /** What was decided; null while sniffing. */
  #mode: 'decode' | 'pass' | null = null
  /** Sniffed bytes (copies: their writes resolved before the decision). */
  #head = new Uint8Array(0)
  #headLength = 0
  /** The inner decoding stream's two ends, in decode mode. */
  #writer: WritableStreamDefaultWriter<BufferSource> | null = null
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null
  /** Resolves once a decision was made (or the stream failed): a pull waits for it. */
  readonly #decided: Promise<void>
  #markDecided!: () => void
  /** Pass mode: a write offers its chunk and waits until a pull takes it. */
  #offer: Offer | null = null
  #wakePull: (() => void) | null = null
  #passedBytes = 0
  /** The abort listener, kept to remove it again. */
  readonly #onAbort = (): void => {
    this.#fail(this.#signal?.reason ?? new CodecError('ABORTED', this.#label, 'aborted'))
  }

  constructor(decide: Decide, options: DecodeStreamOptions, label: string) {
    const { signal, streams, ...innerOptions } = options
    const { ReadableStream: RS, WritableStream: WS } = classes(streams, label)
    // Checked now, so bad options throw at construction even though the inner stream
    // is created later.
    this.#maxOutputBytes = checkMaxOutput(label, options.maxOutputBytes)
    checkChunkSize(label, options.chunkSize)
    if (signal !== undefined && (typeof signal !== 'object' || signal === null || typeof signal.addEventListener !== 'function')) {
      throw new CodecError('INVALID_OPTION', label, 'signal must be an AbortSignal')
    }
    this.#decide = decide
    this.#label = label
    this.#signal = signal
    this.#streams = streams
    this.#innerOptions = innerOptions
    this.#decided = new Promise<void>((resolve) => (this.#markDecided = resolve))

    this.readable = new RS<Uint8Array>(
      {
        start: (controller) => {
          this.#rc = controller
        },
        pull: () => this.#pull(),
        cancel: (reason) => this.#cancel(reason),
      },
      { highWaterMark: 0 },
    )
    this.writable = new WS<BufferSource>(
      {
        start: (controller) => {
          this.#wc = controller
        },
        write: (chunk) => this.#write(chunk),
        close: () => this.#close(),
        abort: (reason) => this.#abort(reason),
      },
      { highWaterMark: 1 },
    )

    if (signal) {
      if (signal.aborted) this.#onAbort()
      else signal.addEventListener('abort', this.#onAbort, { once: true })
    }
  }

  async #pull(): Promise<void> {
    await this.#decided
    if (this.#finished) return
    if (this.#mode === 'decode') {
      let result: ReadableStreamReadResult<Uint8Array>
      try {
        result = await this.#reader!.read()
      } catch (error) {
        this.#fail(error)
        return
      }
      if (this.#finished) return
      if (result.done) {
        this.#finished = true
        this.#release()
        this.#rc.close()
      } else {
        this.#rc.enqueue(result.value)
      }
      return
    }
    // Pass mode: wait for a write's chunk (close() closes the readable directly).
    while (!this.#offer && !this.#finished) await new Promise<void>((resolve) => (this.#wakePull = resolve))
    const taken = this.#offer
    if (!taken || this.#finished) return
    this.#offer = null
    this.#rc.enqueue(taken.bytes)
    taken.resolve()
  }

  async #cancel(reason: unknown): Promise<void> {
    if (this.#finished) return
    this.#finished = true
    const pending = this.#release()
    try { this.#wc.error(reason) } catch { /* already errored */ }
    pending?.reject(reason)
    if (this.#reader) {
      // Frees the inner codec; the inner stream's own rejection (when it had
      // already errored) is not this cancel's result.
      await this.#reader.cancel(reason).catch(() => undefined)
    }
  }

  async #write(chunk: BufferSource): Promise<void> {
    if (this.#finished) return
    try {
      const bytes = toBytes(chunk, true)
      if (this.#mode !== null) return await this.#forward(bytes)
      let decision: Decision | null
      let first: Uint8Array
      if (this.#headLength === 0) {
        // Most streams decide on their first chunk: no copy then.
        decision = await this.#decide(bytes, false)
        first = bytes
        if (!decision) this.#append(bytes)
      } else {
        this.#append(bytes)
        first = this.#head.subarray(0, this.#headLength)
        decision = await this.#decide(first, false)
      }
      if (!decision) {
        if (this.#headLength >= SNIFF_LIMIT) {
          throw new CodecError('LIMIT_EXCEEDED', this.#label, `no decision after ${this.#headLength} bytes (limit ${SNIFF_LIMIT})`)
        }
        return
      }
      if (this.#finished) return
      await this.#start(decision, first)
    } catch (error) {
      this.#fail(error)
      throw error
    }
  }

  async #close(): Promise<void> {
    if (this.#finished) return
    try {
      if (this.#mode === null) {
        const sniffed = this.#head.subarray(0, this.#headLength)
        const decision = await this.#decide(sniffed, true)
        if (!decision) throw new CodecError('TRUNCATED', this.#label, `input ended after ${this.#headLength} bytes before its format could be decided`)
        if (this.#finished) return
        await this.#start(decision, sniffed)
      }
      if (this.#mode === 'decode') {
        await this.#writer!.close()
      } else if (!this.#finished) {
        // Every write resolved only once its chunk was enqueued: nothing is pending.
        this.#finished = true
        this.#release()
        this.#rc.close()
      }
    } catch (error) {
      this.#fail(error)
      throw error
    }
  }

  async #abort(reason: unknown): Promise<void> {
    if (this.#finished) return
    this.#finished = true
    this.#release()
    try { this.#rc.error(reason) } catch { /* already closed */ }
    if (this.#reader) await this.#reader.cancel(reason).catch(() => undefined)
  }

  /** Starts the inner stage for a decision and forwards the sniffed bytes. */
  async #start(decision: Decision, first: Uint8Array): Promise<void> {
    if (decision.kind === 'decode') {
      const inner = decodeStream(decision.format, { ...this.#innerOptions, ...decision.options, streams: this.#streams })
      this.#writer = inner.writable.getWriter()
      this.#reader = inner.readable.getReader()
      this.#mode = 'decode'
    } else {
      this.#mode = 'pass'
    }
    this.#markDecided()
    if (first.length > 0) await this.#forward(first)
  }

  /** Hands decided bytes on: to the inner stream, or (pass mode) to the next pull. */
  async #forward(bytes: Uint8Array): Promise<void> {
    if (this.#mode === 'decode') {
      await this.#writer!.ready
      await this.#writer!.write(bytes as Uint8Array<ArrayBuffer>) // may be shared-backed: the codec stream accepts that
      return
    }
    this.#passedBytes += bytes.length
    if (this.#passedBytes > this.#maxOutputBytes) {
      throw new CodecError('LIMIT_EXCEEDED', this.#label, `output exceeds maxOutputBytes (${this.#maxOutputBytes})`, this.#passedBytes - bytes.length)
    }
    await new Promise<void>((resolve, reject) => {
      this.#offer = { bytes, resolve, reject }
      this.#wakePull?.()
      this.#wakePull = null
    })
  }

  /** Buffers sniffed bytes (a copy), growing the buffer geometrically. */
  #append(bytes: Uint8Array): void {
    const need = this.#headLength + bytes.length
    if (need > this.#head.length) {
      const grown = new Uint8Array(Math.max(need, this.#head.length * 2, 256))
      grown.set(this.#head.subarray(0, this.#headLength))
      this.#head = grown
    }
    this.#head.set(bytes, this.#headLength)
    this.#headLength = need
  }

  /**
   * Stops listening for aborts and wakes everything that waits (a pull, the decision);
   * returns the offer a write was waiting on, for the caller to settle.
   */
  #release(): Offer | null {
    this.#signal?.removeEventListener('abort', this.#onAbort)
    const offer = this.#offer
    this.#offer = null
    this.#wakePull?.()
    this.#wakePull = null
    this.#markDecided()
    return offer
  }

  /** Errors both sides once and frees the inner stream. */
  #fail(error: unknown): void {
    if (this.#finished) return
    this.#finished = true
    const pending = this.#release()
    try { this.#rc.error(error) } catch { /* already closed */ }
    try { this.#wc.error(error) } catch { /* already errored */ }
    pending?.reject(error)
    // Cancelling the inner readable disposes its codec and rejects its pending write.
    // Its result is not needed: the error has reached the user through both outer sides.
    this.#reader?.cancel(error).catch(() => undefined)
  }
}
