/**
 * Node streams interop: codecs as Node `Duplex` streams, for `stream.pipeline`,
 * `fs.createReadStream`/`createWriteStream`, sockets and HTTP bodies.
 *
 * The duplex drives the same machine as the WHATWG streams (so truncation, trailing
 * data and `maxOutputBytes` are judged identically), but without a WHATWG layer in
 * between: Node's own buffering is the only queue. Output is produced only while the
 * readable side wants more (`push()` returns true); a write's callback runs once its
 * chunk is consumed by the codec. A small chunk that inflates to gigabytes therefore
 * waits for its reader instead of filling memory (node:zlib wrapped as a web stream and
 * Node's `DecompressionStream` read all compressed input ahead of a slow reader: 20 MB
 * ahead in a probe, on Node 20).
 */
import { Duplex, Readable, type DuplexOptions } from 'node:stream'
import type { Format } from '../../lib/codec.js'
import type { Machine } from '../../lib/machine.js'
import { prepareDecoder, prepareEncoder, type OpenMachine } from '../../lib/prepare.js'
import { CodecError } from '../../lib/errors.js'
import type { MachineCodecOptions } from '../../lib/option-types.js'
import { describe } from '../../lib/options.js'
import { decodeStream } from '../../streams/factories.js'
import { parallelEncodeStream } from '../../streams/parallel-stream.js'
import type { DecodeThreadOptions, ThreadOptions } from '../../streams/thread-options.js'
import { decodesInParallel, encodesInBlocks } from '../../streams/threads-decision.js'

/** The Node adapter's own option, besides the codec's and the machine's. */
export interface NodeCodecOptions {
  /** Passed to the `Duplex` (e.g. `signal`, `highWaterMark` of the readable side). */
  duplex?: Omit<DuplexOptions, 'objectMode' | 'readableObjectMode' | 'writableObjectMode' | 'decodeStrings' | 'construct' | 'read' | 'write' | 'final' | 'destroy'>
}

/**
 * Options of `nodeDecode(format)`: `duplex`, every decoder's (`engine`, `maxOutputBytes`,
 * `concatenated`, `chunkSize`, `dictionary`) and the format's own (e.g. zstd
 * `maxWindowLog`: `DecodeOptionsByFormat`), and `threads`
 * (parallel zstd and LZ4 decoding, docs/threads.md).
 */
export type NodeDecodeOptions<F extends Format = Format> = NodeCodecOptions & MachineCodecOptions<F, 'decode'> & DecodeThreadOptions

/**
 * Options of `nodeEncode(format)`: `duplex`, every encoder's (`engine`, `level`, `flush`,
 * `chunkSize`, `dictionary`) and the format's own (e.g. brotli `lgwin`, LZ4 `blockSize`),
 * and `threads` / `blockSize` (block mode on workers, docs/threads.md).
 */
export type NodeEncodeOptions<F extends Format = Format> = NodeCodecOptions & MachineCodecOptions<F, 'encode'> & ThreadOptions

/**
 * What `nodeEncode()` and `nodeDecode()` return: a `CodecDuplex`, or with `threads` (or
 * `blockSize`) a `Duplex` over the parallel WHATWG pair (Node's `Duplex.fromWeb`), whose
 * `flush()` (encoders) ends the current block. Either way a Node `Duplex` with `flush()`.
 */
export type NodeCodecDuplex = Duplex & {
  /** Encoders: a sync point after everything written so far (see `CodecDuplex.flush`); decoders have none (the stream fails). */
  flush(callback?: () => void): void
}

/**
 * The keys the Node adapter takes besides the codec's (the machine's and `duplex`); its
 * decoders decode any length unless `maxOutputBytes` is given, as node:zlib's streams
 * do; and a written chunk is read in place until its write's callback, as node:zlib's
 * streams read it (lib/zlib.js `processChunk`), never copied.
 */
const NODE_SURFACE = Object.freeze({ machine: true, shell: Object.freeze(['duplex']), maxOutputBytes: Infinity, borrowInput: true })

/** The write that stands for `flush()` in the write queue (compared by identity). */
const FLUSH = Buffer.alloc(0)

/**
 * A Node `Duplex` around one codec, as `nodeEncode()` and `nodeDecode()` make it: output
 * is produced only while the readable side wants more, and a write's callback runs once
 * the codec has consumed its chunk. Errors destroy it with the `CodecError`.
 */
export class CodecDuplex extends Duplex {
  /** The machine, once the engine has loaded (`_construct` delays reads and writes until then). */
  #machine: Machine | null = null
  readonly #open: () => Promise<Machine>
  /** The callback of the write (or final) whose input the codec is still consuming. */
  #pendingWrite: ((error?: Error | null) => void) | null = null
  #pendingFinal: ((error?: Error | null) => void) | null = null

  constructor(open: () => Promise<Machine>, options: DuplexOptions = {}) {
    super({ ...options, decodeStrings: true, objectMode: false, allowHalfOpen: true })
    this.#open = open
  }

  /** Node's `Duplex` hook; not called directly. */
  override _construct(callback: (error?: Error | null) => void): void {
    this.#open().then(
      (machine) => {
        this.#machine = machine
        callback()
      },
      (error: Error) => callback(error),
    )
  }

  /**
   * Encoders: a sync point after everything written before this call (as node:zlib
   * streams' `flush()`): the output up to it can be decoded without the rest of the
   * stream. It travels through the write queue, so it is ordered with the writes;
   * `callback` runs once it has been queued for the codec.
   */
  flush(callback?: () => void): void {
    this.write(FLUSH, callback)
  }

  /** Node's `Duplex` hook; not called directly. */
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    try {
      if (chunk === FLUSH) {
        this.#machine!.requestFlush()
        this.#pendingWrite = callback
        this.#pump()
        return
      }
      this.#machine!.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    } catch (error) {
      callback(error as Error)
      return
    }
    this.#pendingWrite = callback
    this.#pump()
  }

  /** Node's `Duplex` hook; not called directly. */
  override _final(callback: (error?: Error | null) => void): void {
    // The stream may have ended already (e.g. `concatenated: false` and the frame is done).
    if (this.#machine!.finished) {
      callback()
      return
    }
    this.#pendingFinal = callback
    try {
      this.#machine!.end()
    } catch (error) {
      this.#pendingFinal = null
      callback(error as Error)
      return
    }
    this.#pump()
  }

  /** Node's `Duplex` hook; not called directly. */
  override _read(): void {
    this.#pump()
  }

  /** Node's `Duplex` hook; not called directly. */
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#machine?.dispose()
    this.#machine = null
    callback(error)
  }

  /** Produces output while the reader wants it; releases the pending write once its input is used up. */
  #pump(): void {
    const machine = this.#machine
    if (!machine) return
    try {
      for (;;) {
        const out = machine.next()
        if (out) {
          // Blocks handed out are never written again (lib/machine.ts), so no copy.
          if (!this.push(out)) break
          continue
        }
        if (machine.finished) {
          this.push(null)
          this.#release()
          const final = this.#pendingFinal
          this.#pendingFinal = null
          final?.()
          return
        }
        break
      }
      // Input used up: let the writer go on, even while the reader is full (the output
      // already produced waits in Node's buffer; the next chunk waits in the machine).
      if (machine.needsInput) this.#release()
    } catch (error) {
      this.destroy(error as Error)
    }
  }

  #release(): void {
    const write = this.#pendingWrite
    this.#pendingWrite = null
    write?.()
  }
}

/** Resolves with the machine `open` builds (inside Node streams no user `then` can interfere). */
const machineOf = (open: OpenMachine) => async (): Promise<Machine> => {
  let machine: Machine | null = null
  await open((m) => (machine = m))
  return machine!
}

/**
 * A Node `Duplex` that decodes `format`. Every option is checked now: a bad value, a
 * wrong type or an unknown key throws `INVALID_OPTION` from this call, never as an
 * `'error'` event.
 */
export function nodeDecode<F extends Format>(format: F, options: NodeDecodeOptions<F> = {} as NodeDecodeOptions<F>): NodeCodecDuplex {
  const { duplex, threads, ...codec } = options
  // The rule of every surface (streams/threads-decision.ts).
  if (decodesInParallel(format, options)) return webDuplex(format, decodeStream(format, { ...codec, threads } as never), duplexOptions(format, duplex))
  if (threads !== undefined) options = { duplex, ...codec } as NodeDecodeOptions<F>
  return new CodecDuplex(machineOf(prepareDecoder(format, options, NODE_SURFACE)), duplexOptions(format, options.duplex))
}

/**
 * A Node `Duplex` that encodes `format`. Every option is checked now: a bad value, a
 * wrong type or an unknown key throws `INVALID_OPTION` from this call, never as an
 * `'error'` event. With `threads` above 1 or a `blockSize`, block mode on workers
 * (docs/threads.md): the bytes of `encode()` with the same options.
 */
export function nodeEncode<F extends Format>(format: F, options: NodeEncodeOptions<F> = {} as NodeEncodeOptions<F>): NodeCodecDuplex {
  const { duplex, threads, ...codec } = options
  if (encodesInBlocks(format, options)) return webDuplex(format, parallelEncodeStream(format, { ...codec, threads }), duplexOptions(format, duplex))
  if (threads !== undefined) options = { duplex, ...codec } as NodeEncodeOptions<F>
  return new CodecDuplex(machineOf(prepareEncoder(format, options, NODE_SURFACE)), duplexOptions(format, options.duplex))
}

/**
 * A Node `Duplex` over a WHATWG pair (Node's `Duplex.fromWeb`), with the pair's
 * `flush()`; errors destroy it with the `CodecError`.
 */
function webDuplex(format: Format, pair: ReadableWritablePair<Uint8Array, Uint8Array> & { flush(): Promise<void> }, options: DuplexOptions | undefined): NodeCodecDuplex {
  const { signal, highWaterMark, readableHighWaterMark, writableHighWaterMark, ...others } = options ?? {}
  const unknown = Object.keys(others).filter((k) => (others as Record<string, unknown>)[k] !== undefined && k !== 'allowHalfOpen')
  if (unknown.length > 0 || readableHighWaterMark !== undefined || writableHighWaterMark !== undefined) {
    throw new CodecError('INVALID_OPTION', format, `duplex: with threads or blockSize the stream is Node's Duplex.fromWeb, which takes signal and highWaterMark only, got ${[...unknown, ...(readableHighWaterMark !== undefined ? ['readableHighWaterMark'] : []), ...(writableHighWaterMark !== undefined ? ['writableHighWaterMark'] : [])].join(', ')}`)
  }
  const d = Duplex.fromWeb(pair as never, { allowHalfOpen: true, signal, highWaterMark }) as NodeCodecDuplex
  d.flush = (callback?: () => void): void => {
    pair.flush().then(
      () => callback?.(),
      (error: Error) => d.destroy(error),
    )
  }
  return d
}

/** The `duplex` option: an object, or nothing. */
function duplexOptions(format: Format, value: unknown): DuplexOptions | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null) throw new CodecError('INVALID_OPTION', format, `duplex must be an object of Duplex options, got ${describe(value)}`)
  return value as DuplexOptions
}

/** A source for `decodeFile`: a path, a `file:` URL, or an open `fs/promises` `FileHandle`. */
export type FileSource = string | URL | import('node:fs/promises').FileHandle

/**
 * The decoded contents of a file as a Node `Readable`. A `FileHandle` stays owned by the
 * caller's `open()`, but is closed when the stream ends or fails (`autoClose`).
 */
export async function decodeFile<F extends Format>(source: FileSource, format: F, options: NodeDecodeOptions<F> = {} as NodeDecodeOptions<F>): Promise<Readable> {
  const byPath = typeof source === 'string' || source instanceof URL
  // The file's size is onProgress's totalIn (read when the machine is built, after the
  // stat below); options are checked before the file is touched.
  let totalIn: number | undefined
  const surface = Object.freeze({
    ...NODE_SURFACE,
    get totalIn() {
      return totalIn
    },
  })
  const open = prepareDecoder(format, options, surface)
  const checkedDuplex = duplexOptions(format, options.duplex)
  if (options.onProgress !== undefined) {
    const { stat } = await import('node:fs/promises')
    totalIn = (byPath ? await stat(source) : await source.stat()).size
  }
  const decoder = new CodecDuplex(machineOf(open), checkedDuplex)
  const { createReadStream } = await import('node:fs')
  const input = byPath ? createReadStream(source) : source.createReadStream()
  // stream.pipeline semantics without its callback: an error on either side destroys both.
  input.on('error', (error) => decoder.destroy(error))
  decoder.on('error', () => input.destroy())
  decoder.on('close', () => input.destroy())
  input.pipe(decoder)
  return decoder
}

/** A WHATWG `ReadableStream` of a Node `Readable` (Node's own `Readable.toWeb`). */
export const toWebReadable = (readable: Readable): ReadableStream<Uint8Array> => Readable.toWeb(readable) as unknown as ReadableStream<Uint8Array>

/** A Node `Readable` of a WHATWG `ReadableStream` (Node's own `Readable.fromWeb`). */
export const fromWebReadable = (readable: ReadableStream<Uint8Array>): Readable => Readable.fromWeb(readable as unknown as import('node:stream/web').ReadableStream)
