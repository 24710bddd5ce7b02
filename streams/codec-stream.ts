/**
 * The WHATWG shell around the machine: a writable side that offers chunks, a readable
 * side that pulls output. It is a transform stream in shape (`{ writable, readable }`,
 * usable with `pipeThrough`) but drives the codec from the readable side's demand:
 * output is produced only while `desiredSize > 0`, and a write resolves only once its
 * chunk is consumed. A TransformStream's `transform()` cannot wait for demand in the
 * middle of a chunk, so a decoder that inflates one small chunk to gigabytes would
 * queue them all; here it waits.
 */
import { CodecError } from '../lib/errors.js'
import { toBytes, type BinaryInput } from '../lib/bytes.js'
import type { DecodeThreadOptions, ThreadOptions } from './thread-options.js'

/** Stream classes to use instead of the global ones (e.g. web-streams-polyfill's). */
export interface StreamClasses {
  /** The `ReadableStream` class. */
  ReadableStream: typeof ReadableStream
  /** The `WritableStream` class. */
  WritableStream: typeof WritableStream
}

/**
 * Options every stream takes (decoders and encoders), besides the machine's (`chunkSize`,
 * ...: `MachineCodecOptions`).
 */
export interface StreamOptions {
  /** Aborts the stream: both sides error with the signal's reason, resources are freed. */
  signal?: AbortSignal
  /** Stream classes to build on; default: the runtime's globals. */
  streams?: StreamClasses
}

/**
 * The keys the stream factories take besides the codec's and its machine's, by role: the
 * stream's (`StreamOptions`) and the threads' (`DecodeThreadOptions`, `ThreadOptions`).
 * The one list that `decodeStream`/`encodeStream` (which the named factories call), their
 * threads forms and the web classes check against; the compile-time check below keeps it
 * equal to the types' keys.
 */
export const STREAM_KEYS = /* @__PURE__ */ Object.freeze({
  decode: Object.freeze(['signal', 'streams', 'threads'] as const),
  encode: Object.freeze(['signal', 'streams', 'threads', 'blockSize'] as const),
})

type SameKeys<A extends string, B extends string> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Ok<T extends true> = T
// Not exported: the compiler checks the constraints all the same.
type StreamKeysChecked = [
  Ok<SameKeys<(typeof STREAM_KEYS.decode)[number], keyof StreamOptions | keyof DecodeThreadOptions>>,
  Ok<SameKeys<(typeof STREAM_KEYS.encode)[number], keyof StreamOptions | keyof ThreadOptions>>,
]

/** Maps an error before it reaches the stream's users (the web-compatible classes wrap it in a `TypeError`). */
export type Surface = (error: unknown) => unknown

/**
 * How a stream meets its user, the same for its serial and its threads forms: the errors
 * it shows (`surface`; without it, `CodecError`s as they are) and whether chunks backed by
 * a SharedArrayBuffer are taken. The library's streams take any binary input; the
 * web-compatible classes pass the standard's rules (streams/compression-stream.ts).
 */
export interface SurfaceRules {
  readonly surface?: Surface
  readonly allowShared: boolean
}

/**
 * What the shell drives: the machine (`lib/machine.ts`) for codecs, or any other
 * synchronous, pull-shaped converter of byte chunks to output items (the Arrow IPC
 * reader). `push()` offers a chunk that stays the caller's until `needsInput`; each
 * `next()` returns one output item, or null when it needs input, has finished, or waits
 * for `pending`.
 */
export interface Pump<O> {
  /** `lent`: a chunk the shell copied itself, left alone until consumed (see `Machine.push`). */
  push(chunk: Uint8Array, lent?: boolean): void
  end(): void
  next(): O | null
  readonly needsInput: boolean
  readonly finished: boolean
  /** Asynchronous work (e.g. loading a codec) that `next()` waits for, if any. */
  readonly pending?: Promise<void> | null
  /** Writes output straight into `dst` (BYOB reads); returns the bytes written (see `Machine.nextInto`). */
  nextInto?(dst: Uint8Array): number
  /** Encoders: asks for a sync point after the input pushed so far (see `Machine`). */
  requestFlush?(): void
  /** Whether a requested sync point is still to be written. */
  readonly flushPending?: boolean
  dispose(): void
}

/**
 * Creates the pump (may load an engine first) and hands it to `use`. It is handed over
 * by callback, not as the promise's value: resolving a promise with an object runs a
 * `then` lookup, which is user code when `Object.prototype.then` has been patched (the
 * Compression Streams tests do exactly that to detach buffers).
 */
export type OpenPump<O> = (use: (pump: Pump<O>) => void) => Promise<void>

interface ShellOptions<O> {
  format: string
  /** Creates the machine (or other pump); see `OpenPump`. */
  open: OpenPump<O>
  /**
   * Open at construction rather than at the first write or close: for pumps that load
   * nothing (see the note where `ready` is defined).
   */
  openAtOnce?: boolean
  /** Whether chunks backed by a SharedArrayBuffer are accepted. */
  allowShared: boolean
  /** Maps errors before they reach the user (the web-compatible classes use TypeError). */
  surface?: Surface
  signal?: AbortSignal
  streams?: StreamClasses
  /**
   * Why `flush()` cannot be had from this stream (decoders; encoders without sync
   * points), or null when it can.
   */
  unflushable?: Error | null
  /**
   * The readable side is a byte stream (`type: 'bytes'`): BYOB readers get the output
   * written straight into their buffers (the pump needs `nextInto`). Falls back to a
   * default stream where the stream classes have no byte streams.
   */
  bytes?: boolean
}

/**
 * A chunk for a byte stream's `enqueue()`, which transfers the chunk's buffer: a chunk
 * that ends its block is handed over as it is (the machine starts a new block); a chunk
 * in the middle of a block is copied, so the block goes on serving later output.
 */
function own(chunk: Uint8Array): Uint8Array {
  return chunk.byteOffset + chunk.byteLength === chunk.buffer.byteLength ? chunk : chunk.slice()
}

/**
 * Checks `streams` (or, without it, the runtime's globals) for the two stream classes
 * the shells build on; `INVALID_OPTION` naming `label` when they are missing.
 */
export function classes(streams: StreamClasses | undefined, label: string): StreamClasses {
  const s = streams ?? (globalThis as Partial<StreamClasses>)
  if (typeof s.ReadableStream !== 'function' || typeof s.WritableStream !== 'function') {
    throw new CodecError('INVALID_OPTION', label, streams ? 'streams must provide ReadableStream and WritableStream classes' : 'this runtime has no global ReadableStream/WritableStream: pass them as options.streams')
  }
  return s as StreamClasses
}

/** A settled-later promise's two ends. */
interface Waiter {
  resolve: () => void
  reject: (e: unknown) => void
}

/**
 * A `{ writable, readable }` pair driving one codec through the machine (or another pump).
 */
export class CodecStream<I = BinaryInput, O = Uint8Array> {
  /** The output: produced only while its reader wants more. */
  readonly readable: ReadableStream<O>
  /** The input: any `BufferSource` chunks. */
  readonly writable: WritableStream<I>

  readonly #format: string
  readonly #open: OpenPump<O>
  readonly #allowShared: boolean
  /** Maps errors before they reach the user. */
  readonly #surface: Surface
  readonly #signal: AbortSignal | undefined
  /** Why `flush()` cannot be had, or null when it can. */
  readonly #unflushable: Error | null
  /** The pump, once opened; null before and after (disposed) a stream that never opened. */
  #machine: Pump<O> | null = null
  #readableController!: ReadableStreamDefaultController<O>
  #writableController!: WritableStreamDefaultController
  /** Whether the readable side is a byte stream (BYOB reads go straight to the pump). */
  #bytes: boolean
  /** Byte streams: a read waits for a chunk (its pull came, no chunk went out since). */
  #wanted = false
  /** The pending write (or close), settled once its input is consumed (or finished). */
  #pending: Waiter | null = null
  /** Finished, failed, cancelled or aborted: the pump is disposed, nothing more happens. */
  #done = false
  /** The error the stream ended with (as the user sees it), if it did not finish. */
  #failure: { error: unknown } | null = null
  /** `flush()` calls waiting for their sync point. */
  #flushWaiters: Waiter[] = []
  /** Opening the pump, started once (see `#ready`). */
  #opening: Promise<void> | null = null
  /** The abort listener, kept to remove it again. */
  readonly #onAbort = (): void => {
    this.#fail(this.#signal?.reason ?? new CodecError('ABORTED', this.#format, 'aborted'))
  }

  /**
   * Made by the stream factories (`gzipDecode()`, `decodeStream()`, ...), which build the
   * pump and its options; not meant to be called directly.
   * @internal
   */
  constructor(options: ShellOptions<O>) {
    const { ReadableStream: RS, WritableStream: WS } = classes(options.streams, options.format)
    this.#format = options.format
    this.#open = options.open
    this.#allowShared = options.allowShared
    this.#surface = options.surface ?? ((e: unknown) => e)
    this.#signal = options.signal
    this.#unflushable = options.unflushable === undefined ? new CodecError('UNSUPPORTED', options.format, 'this stream has no flush') : options.unflushable

    this.#signal?.addEventListener('abort', this.#onAbort, { once: true })
    if (options.openAtOnce) this.#ready().catch((error: unknown) => this.#fail(error))

    const source = {
      start: (controller: ReadableStreamDefaultController<O>) => {
        this.#readableController = controller
      },
      pull: () => {
        // A byte stream has no read-ahead (high-water mark 0): a pull means a read waits.
        if (this.#bytes) this.#wanted = true
        this.#pump()
      },
      cancel: (reason: unknown) => {
        this.#stop(reason)
        try { this.#writableController.error(reason) } catch { /* already errored */ }
        this.#settle(reason)
      },
    }
    this.#bytes = options.bytes === true
    let readable: ReadableStream<O> | null = null
    if (this.#bytes) {
      try {
        // No read-ahead: output is produced for a read that waits (`#wanted`), into its
        // BYOB buffer when it has one. A chunk made ahead would be a fresh block per read,
        // garbage that a BYOB reader reusing one buffer never needs (1 GiB of it per GiB).
        readable = new RS({ ...source, type: 'bytes' } as unknown as UnderlyingDefaultSource<O>, { highWaterMark: 0 })
      } catch {
        this.#bytes = false
      }
    }
    this.readable = readable ?? new RS<O>(source, { highWaterMark: 1 })

    this.writable = new WS<I>(
      {
        start: (controller) => {
          this.#writableController = controller
          // writer.abort() waits for the write in flight, which waits for a reader that
          // may never come: the controller's signal fires at once, so release it here.
          controller.signal?.addEventListener('abort', () => this.#abort(controller.signal.reason))
        },
        write: (chunk) => this.#write(chunk),
        close: () => this.#close(),
        abort: (reason) => this.#abort(reason),
      },
      { highWaterMark: 1 },
    )
  }

  /**
   * Encoders: writes a sync point after everything written so far (the chunks whose
   * `write()` was handed to the stream), so that a decoder can produce all of it
   * without the rest of the stream. Resolves once the encoder has written the sync
   * point; like all output, that needs a reader (the stream produces only while the
   * readable side wants more), so read while awaiting it. After `close()`, at once.
   * Rejects with `UNSUPPORTED` where the stream has no sync points to write (decoders,
   * the raw LZ4 block encoder), leaving the stream as it was.
   */
  async flush(): Promise<void> {
    if (this.#unflushable !== null) throw this.#surface(this.#unflushable)
    if (!this.#machine && !this.#done) await this.#readyOrFail()
    if (this.#done) {
      if (this.#failure) throw this.#failure.error
      return
    }
    const m = this.#machine!
    if (typeof m.requestFlush !== 'function') throw this.#surface(new CodecError('UNSUPPORTED', this.#format, 'this stream has no flush'))
    return new Promise<void>((resolve, reject) => {
      try {
        m.requestFlush!()
      } catch (error) {
        reject(this.#surface(error))
        return
      }
      if (!m.flushPending) {
        resolve()
        return
      }
      this.#flushWaiters.push({ resolve, reject })
      this.#pump()
    })
  }

  // The engine loads at the first write or close, not at construction: loading resolves
  // promises with objects (module records, wasm instances), whose `then` lookups can run
  // user code, e.g. a getter that detaches a chunk already written (WPT
  // compression-with-detach). write() copies its chunk before waiting for the engine.
  #ready(): Promise<void> {
    return (this.#opening ??= (async () => {
      if (this.#signal?.aborted) throw this.#signal.reason ?? new CodecError('ABORTED', this.#format, 'aborted')
      await this.#open((opened) => {
        if (this.#done) opened.dispose()
        else this.#machine = opened
      })
    })())
  }

  /** `#ready()`, failing the stream (and rethrowing as the user sees it) when opening fails. */
  async #readyOrFail(): Promise<void> {
    try {
      await this.#ready()
    } catch (error) {
      this.#fail(error)
      throw this.#surface(error)
    }
  }

  async #write(chunk: I): Promise<void> {
    if (this.#done) return Promise.reject(this.#surface(new CodecError('INVALID_OPTION', this.#format, 'write after the stream ended')))
    let bytes: Uint8Array
    let copied = false
    try {
      // Not binary: INVALID_OPTION (the web-compatible classes show it as a TypeError).
      bytes = toBytes(chunk as BinaryInput, this.#allowShared, this.#format)
      // Until the engine is ready the chunk waits: own a copy of it meanwhile (lent to
      // the machine, which then never copies it again).
      // `new Uint8Array(view)` copies; a Node Buffer's `slice()` would be a view.
      if (!this.#machine) {
        bytes = new Uint8Array(bytes)
        copied = true
      }
    } catch (error) {
      this.#fail(error)
      return Promise.reject(this.#surface(error))
    }
    if (!this.#machine) {
      await this.#readyOrFail()
      if (this.#done) throw this.#surface(new CodecError('INVALID_OPTION', this.#format, 'write after the stream ended'))
    }
    return new Promise<void>((resolve, reject) => {
      this.#pending = { resolve, reject }
      try {
        this.#machine!.push(bytes, copied)
      } catch (error) {
        this.#fail(error)
        return
      }
      this.#pump()
    })
  }

  async #close(): Promise<void> {
    if (!this.#machine && !this.#done) await this.#readyOrFail()
    if (this.#done) return
    return new Promise<void>((resolve, reject) => {
      this.#pending = { resolve, reject }
      this.#machine!.end()
      this.#pump()
    })
  }

  /** The writable side aborted (by its writer or its controller's signal). */
  #abort(reason: unknown): void {
    this.#stop(reason)
    try { this.#readableController.error(reason) } catch { /* already errored */ }
    this.#settle(reason)
  }

  /** Produces output while the readable side wants it; settles the write when its input is used up. */
  #pump(): void {
    const machine = this.#machine
    if (!machine || this.#done) return
    const rc = this.#readableController
    try {
      for (;;) {
        // A BYOB read waiting: output goes straight into the reader's buffer.
        const request = this.#bytes ? ((rc as unknown as ReadableByteStreamController).byobRequest ?? null) : null
        if (request === null && !this.#wanted && !((rc.desiredSize ?? 0) > 0)) break
        if (request !== null) {
          const view = request.view!
          const n = machine.nextInto!(new Uint8Array(view.buffer, view.byteOffset, view.byteLength))
          if (this.#flushWaiters.length > 0 && !machine.flushPending) this.#settleFlushes()
          if (n > 0) {
            this.#wanted = false
            request.respond(n)
            continue
          }
        } else {
          const out = machine.next()
          if (this.#flushWaiters.length > 0 && !machine.flushPending) this.#settleFlushes()
          if (out !== null) {
            this.#wanted = false
            rc.enqueue((this.#bytes ? own(out as Uint8Array) : out) as O)
            continue
          }
        }
        if (machine.finished) {
          this.#teardown()
          rc.close()
          // A pending BYOB read is answered with done, its buffer returned.
          request?.respond(0)
          this.#settle()
          this.#settleFlushes()
          return
        }
        const wait = machine.pending
        if (wait) {
          wait.then(
            () => this.#pump(),
            (error: unknown) => this.#fail(error),
          )
          return
        }
        if (machine.needsInput) this.#settle()
        return
      }
      // The consumer is full. If this chunk's input is used up already, let the writer
      // go on: the output it produced waits in the machine for the next pull.
      if (machine.needsInput) this.#settle()
    } catch (error) {
      this.#fail(error)
    }
  }

  /** Settles the pending write (or close): rejects it with `error`, else resolves it. */
  #settle(error?: unknown): void {
    const pending = this.#pending
    this.#pending = null
    if (error !== undefined) pending?.reject(error)
    else pending?.resolve()
  }

  /** Settles the waiting `flush()` calls: rejects them with `error.error`, else resolves them. */
  #settleFlushes(error?: { error: unknown }): void {
    const waiters = this.#flushWaiters
    this.#flushWaiters = []
    for (const w of waiters) error ? w.reject(error.error) : w.resolve()
  }

  /** Marks the stream done once: stops listening for aborts and frees the pump. */
  #teardown(): void {
    if (this.#done) return
    this.#done = true
    this.#signal?.removeEventListener('abort', this.#onAbort)
    this.#machine?.dispose()
  }

  /** Ends the stream for `reason` (cancel, abort): frees the codec, fails waiting flushes. */
  #stop(reason: unknown): void {
    if (this.#done) return
    this.#failure = { error: reason }
    this.#teardown()
    this.#settleFlushes(this.#failure)
  }

  /** Errors both sides once, with the error as the user sees it. */
  #fail(error: unknown): void {
    if (this.#done) return
    const shown = this.#surface(error)
    this.#failure = { error: shown }
    this.#teardown()
    this.#settleFlushes(this.#failure)
    try { this.#readableController.error(shown) } catch { /* already errored or closed */ }
    try { this.#writableController.error(shown) } catch { /* already errored or closed */ }
    this.#settle(shown)
  }
}
