/**
 * The sniffing stream: a `{ writable, readable }` pair that buffers the first bytes
 * (copied, at most `SNIFF_LIMIT`) until a `Decide` callback says what they are, then
 * hands them (and every later chunk) to the ordinary decoding stream of that format
 * (`decodeStream` in factories.ts), or passes them through. Nothing is decoded here: this
 * module only buffers, forwards with backpressure and ties the two pairs' errors,
 * cancellation and aborts together. Used by `decompress()` and the HTTP adapter's layers.
 */
import { toBytes } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { checkChunkSize, checkMaxOutput } from '../lib/codec-options.js'
import { SNIFF_LIMIT } from '../lib/detect.js'
import { CodecError } from '../lib/errors.js'
import { classes, type StreamClasses } from './codec-stream.js'
import { decodeStream, type DecodeStreamOptions } from './factories.js'

/**
 * A readable/writable pair, as the factories return (not a `TransformStream`).
 * @inline
 */
export type Pair = ReadableWritablePair<Uint8Array, BufferSource>

/** What a sniffing stage decided to do with its input. */
export type Decision = { kind: 'decode'; format: Format; options?: Record<string, unknown> } | { kind: 'pass' }

/**
 * Looks at the first bytes (`head`, all buffered so far; `ended` when no more will come)
 * and decides, or returns `null` to see more. May throw a `CodecError` (unknown input).
 */
export type Decide = (head: Uint8Array, ended: boolean) => Decision | null | Promise<Decision | null>

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
    this.#maxOutputBytes = checkMaxOutput(label, options.maxOutputBytes, Infinity)
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
      const bytes = toBytes(chunk, true, this.#label)
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
          throw new CodecError('LIMIT_EXCEEDED', this.#label, `no decision after ${this.#headLength} bytes, more than SNIFF_LIMIT (${SNIFF_LIMIT}, not an option: a format shows in its first bytes); name the format: decodeStream(format)`)
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
