import { CodecError } from '../lib/errors.js'
import { toBytes, type BinaryInput } from '../lib/bytes.js'
import type { ProgressCallback } from '../lib/progress.js'

/**
 * The WHATWG shell around the machine: a writable side that offers chunks, a readable
 * side that pulls output. It is a transform stream in shape (`{ writable, readable }`,
 * usable with `pipeThrough`) but drives the codec from the readable side's demand:
 * output is produced only while `desiredSize > 0`, and a write resolves only once its
 * chunk is consumed. A TransformStream's `transform()` cannot wait for demand in the
 * middle of a chunk, so a decoder that inflates one small chunk to gigabytes would
 * queue them all; here it waits.
 */

/** Stream classes to use instead of the global ones (e.g. web-streams-polyfill's). */
export interface StreamClasses {
  ReadableStream: typeof ReadableStream
  WritableStream: typeof WritableStream
}

export interface StreamOptions {
  /**
   * Output chunk size in bytes (the machine's block size). By default chunks start at
   * 16 KiB and grow with the output to 256 KiB.
   */
  chunkSize?: number
  /** Aborts the stream: both sides error with the signal's reason, resources are freed. */
  signal?: AbortSignal
  /** Stream classes to build on; default: the runtime's globals. */
  streams?: StreamClasses
  /**
   * Called with `{ bytesIn, bytesOut }` as the stream runs: at most once per output
   * chunk and per 50 ms, and once at the end.
   */
  onProgress?: ProgressCallback
}

export type Surface = (error: unknown) => unknown

/**
 * What the shell drives: the machine (`lib/machine.ts`) for codecs, or any other
 * synchronous, pull-shaped converter of byte chunks to output items (the Arrow IPC
 * reader). `push()` offers a chunk that stays the caller's until `needsInput`; each
 * `next()` returns one output item, or null when it needs input, has finished, or waits
 * for `pending`.
 */
export interface Pump<O> {
  push(chunk: Uint8Array): void
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


function classes(streams: StreamClasses | undefined, format: string): StreamClasses {
  if (streams) {
    if (typeof streams.ReadableStream !== 'function' || typeof streams.WritableStream !== 'function') {
      throw new CodecError('INVALID_OPTION', format, 'streams must provide ReadableStream and WritableStream classes')
    }
    return streams
  }
  const g = globalThis as Partial<StreamClasses>
  if (typeof g.ReadableStream !== 'function' || typeof g.WritableStream !== 'function') {
    throw new CodecError('INVALID_OPTION', format, 'this runtime has no global ReadableStream/WritableStream: pass them as options.streams')
  }
  return g as StreamClasses
}

/**
 * A `{ writable, readable }` pair driving one codec through the machine (or another pump).
 */
export class CodecStream<I = BinaryInput, O = Uint8Array> {
  readonly readable: ReadableStream<O>
  readonly writable: WritableStream<I>
  readonly #flush: () => Promise<void>

  /**
   * Encoders: writes a sync point after everything written so far (the chunks whose
   * `write()` was handed to the stream), so that a decoder can produce all of it
   * without the rest of the stream. Resolves once the encoder has written the sync
   * point; like all output, that needs a reader (the stream produces only while the
   * readable side wants more), so read while awaiting it. After `close()`, at once. Rejects with `UNSUPPORTED` where the encoder cannot flush
   * (brotli on the wasm engine), leaving the stream as it was.
   */
  flush(): Promise<void> {
    return this.#flush()
  }

  constructor(options: ShellOptions<O>) {
    const { ReadableStream: RS, WritableStream: WS } = classes(options.streams, options.format)
    const surface = options.surface ?? ((e: unknown) => e)
    const signal = options.signal

    let machine: Pump<O> | null = null
    let readableController!: ReadableStreamDefaultController<O>
    // eslint-disable-next-line prefer-const -- assigned once the readable side is built
    let bytes: boolean
    let writableController!: WritableStreamDefaultController
    /** Settles the pending write (or close) once its input is consumed (or finished). */
    let pendingResolve: (() => void) | null = null
    let pendingReject: ((e: unknown) => void) | null = null
    let done = false
    /** The error the stream ended with (as the user sees it), if it did not finish. */
    let failure: { error: unknown } | null = null
    /** `flush()` calls waiting for their sync point. */
    let flushWaiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = []
    const settleFlushes = (error?: { error: unknown }) => {
      const waiters = flushWaiters
      flushWaiters = []
      for (const w of waiters) error ? w.reject(error.error) : w.resolve()
    }

    const settle = (error?: unknown) => {
      const resolve = pendingResolve
      const reject = pendingReject
      pendingResolve = pendingReject = null
      if (error !== undefined) reject?.(error)
      else resolve?.()
    }

    const teardown = () => {
      if (done) return
      done = true
      signal?.removeEventListener('abort', onAbort)
      machine?.dispose()
    }

    /** Ends the stream for `reason` (cancel, abort): frees the codec, fails waiting flushes. */
    const stop = (reason: unknown) => {
      if (done) return
      failure = { error: reason }
      teardown()
      settleFlushes(failure)
    }

    /** Errors both sides once, with the error as the user sees it. */
    const fail = (error: unknown) => {
      if (done) return
      const shown = surface(error)
      failure = { error: shown }
      teardown()
      settleFlushes(failure)
      try { readableController.error(shown) } catch { /* already errored or closed */ }
      try { writableController.error(shown) } catch { /* already errored or closed */ }
      settle(shown)
    }

    /** Produces output while the readable side wants it; settles the write when its input is used up. */
    const pump = () => {
      if (!machine || done) return
      try {
        for (;;) {
          // A BYOB read waiting: output goes straight into the reader's buffer.
          const request = bytes ? ((readableController as unknown as ReadableByteStreamController).byobRequest ?? null) : null
          if (request === null && !((readableController.desiredSize ?? 0) > 0)) break
          if (request !== null) {
            const view = request.view!
            const n = machine.nextInto!(new Uint8Array(view.buffer, view.byteOffset, view.byteLength))
            if (flushWaiters.length > 0 && !machine.flushPending) settleFlushes()
            if (n > 0) {
              request.respond(n)
              continue
            }
          } else {
            const out = machine.next()
            if (flushWaiters.length > 0 && !machine.flushPending) settleFlushes()
            if (out !== null) {
              readableController.enqueue((bytes ? own(out as Uint8Array) : out) as O)
              continue
            }
          }
          if (machine.finished) {
            teardown()
            readableController.close()
            // A pending BYOB read is answered with done, its buffer returned.
            request?.respond(0)
            settle()
            settleFlushes()
            return
          }
          const wait = machine.pending
          if (wait) {
            wait.then(pump, fail)
            return
          }
          if (machine.needsInput) settle()
          return
        }
        // The consumer is full. If this chunk's input is used up already, let the writer
        // go on: the output it produced waits in the machine for the next pull.
        if (machine.needsInput) settle()
      } catch (error) {
        fail(error)
      }
    }

    function onAbort() {
      const reason = signal?.reason ?? new CodecError('ABORTED', options.format, 'aborted')
      fail(reason)
    }

    // The engine loads at the first write or close, not at construction: loading resolves
    // promises with objects (module records, wasm instances), whose `then` lookups can run
    // user code, e.g. a getter that detaches a chunk already written (WPT
    // compression-with-detach). write() copies its chunk before waiting for the engine.
    let readyPromise: Promise<void> | null = null
    const ready = (): Promise<void> =>
      (readyPromise ??= (async () => {
        if (signal?.aborted) throw signal.reason ?? new CodecError('ABORTED', options.format, 'aborted')
        await options.open((opened) => {
          if (done) opened.dispose()
          else machine = opened
        })
      })())
    signal?.addEventListener('abort', onAbort, { once: true })
    if (options.openAtOnce) ready().catch(fail)

    const unflushable = options.unflushable === undefined ? new CodecError('UNSUPPORTED', options.format, 'this stream has no flush') : options.unflushable
    this.#flush = async () => {
      if (unflushable !== null) throw surface(unflushable)
      if (!machine && !done) {
        try {
          await ready()
        } catch (error) {
          fail(error)
          throw surface(error)
        }
      }
      if (done) {
        if (failure) throw failure.error
        return
      }
      const m = machine!
      if (typeof m.requestFlush !== 'function') throw surface(new CodecError('UNSUPPORTED', options.format, 'this stream has no flush'))
      return new Promise<void>((resolve, reject) => {
        try {
          m.requestFlush!()
        } catch (error) {
          reject(surface(error))
          return
        }
        if (!m.flushPending) {
          resolve()
          return
        }
        flushWaiters.push({ resolve, reject })
        pump()
      })
    }

    const source = {
      start: (controller: ReadableStreamDefaultController<O>) => {
        readableController = controller
      },
      pull: () => {
        pump()
      },
      cancel: (reason: unknown) => {
        stop(reason)
        try { writableController.error(reason) } catch { /* already errored */ }
        settle(reason)
      },
    }
    bytes = options.bytes === true
    let readable: ReadableStream<O> | null = null
    if (bytes) {
      try {
        // highWaterMark counts bytes here: 1 keeps one chunk at most queued, as below.
        readable = new RS({ ...source, type: 'bytes' } as unknown as UnderlyingDefaultSource<O>, { highWaterMark: 1 })
      } catch {
        bytes = false
      }
    }
    this.readable = readable ?? new RS<O>(source, { highWaterMark: 1 })

    this.writable = new WS<I>(
      {
        start: (controller) => {
          writableController = controller
          // writer.abort() waits for the write in flight, which waits for a reader that
          // may never come: the controller's signal fires at once, so release it here.
          controller.signal?.addEventListener('abort', () => {
            const reason = controller.signal.reason
            stop(reason)
            try { readableController.error(reason) } catch { /* already errored */ }
            settle(reason)
          })
        },
        write: async (chunk) => {
          if (done) return Promise.reject(surface(new CodecError('INVALID_OPTION', options.format, 'write after the stream ended')))
          let bytes: Uint8Array
          try {
            bytes = toBytes(chunk, options.allowShared)
            // Until the engine is ready the chunk waits: own a copy of it meanwhile.
            if (!machine) bytes = bytes.slice()
          } catch (error) {
            fail(error)
            return Promise.reject(error)
          }
          if (!machine) {
            try {
              await ready()
            } catch (error) {
              fail(error)
              throw surface(error)
            }
            if (done) throw surface(new CodecError('INVALID_OPTION', options.format, 'write after the stream ended'))
          }
          return new Promise<void>((resolve, reject) => {
            pendingResolve = resolve
            pendingReject = reject
            try {
              machine!.push(bytes)
            } catch (error) {
              fail(error)
              return
            }
            pump()
          })
        },
        close: async () => {
          if (!machine && !done) {
            try {
              await ready()
            } catch (error) {
              fail(error)
              throw surface(error)
            }
          }
          if (done) return
          return new Promise<void>((resolve, reject) => {
            pendingResolve = resolve
            pendingReject = reject
            machine!.end()
            pump()
          })
        },
        abort: (reason) => {
          stop(reason)
          try { readableController.error(reason) } catch { /* already errored */ }
          settle(reason)
        },
      },
      { highWaterMark: 1 },
    )
  }
}
