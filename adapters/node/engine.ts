/**
 * The opt-in `node` engine: span codecs over node:zlib (gzip, deflate, deflate-raw,
 * brotli, and zstd where the running Node has it).
 *
 * node:zlib's public API is streams or one-shot calls, neither of which says how much
 * input a step used. For the exact span contract this module drives the native handle
 * synchronously, the way Node's own `*Sync` functions do (lib/zlib.js
 * `processChunkSync`). Internal API relied on (present in Node 20 and 22):
 * - `stream._handle.writeSync(flush, in, inOff, inLen, out, outOff, outLen)`: one
 *   synchronous step of the native (de)compressor over the given ranges;
 * - `stream._writeState`: a `Uint32Array(2)` the handle fills after each successful
 *   step with `[availOutAfter, availInAfter]`; it is not updated when a step fails;
 * - `stream._handle.onerror(message, errno, code)`: called synchronously on failure
 *   (we replace Node's handler, which would destroy the stream);
 * - `stream._handle.reset()` and `stream.close()`.
 * Native CHECKs abort the process on bad ranges or use after close, so every call
 * here passes ranges inside the arrays and refuses to run after `dispose()`.
 *
 * Decoding gzip and zlib uses a raw inflate handle under the same header/trailer
 * parser as the js engine (lib/codecs/deflate.ts): Node's GUNZIP mode silently goes
 * on to the next member when the byte after a member is not 0 (src/node_zlib.cc), so
 * it cannot stop at the end of one member as the contract requires.
 *
 * End of stream: zlib, brotli and zstd stop a step early only at the end of a stream
 * (or frame) or on an error, so "input left and output room left" after a successful
 * step means Done. When a step ends with the input used up exactly, a probe step with
 * the FINISH flag, no input and 1 byte of room tells the two cases apart: it fails
 * with "unexpected end of file" (Z_BUF_ERROR, harmless to the native state) unless the
 * stream has ended. When a step fills the destination exactly (or the destination is
 * empty: the binding cannot step into 0 bytes, Z_STREAM_ERROR on the deflate family), a
 * step into one byte of room of our own tells whether output remains: a byte it decodes
 * is held for the next call (DestinationTooSmall), none means the end was reached (Done).
 */
import zlib from 'node:zlib'
import type { Decoder, Encoder, Format } from '../../lib/codec.js'
import { CodecError, type Failure } from '../../lib/errors.js'
import { traitsOf } from '../../lib/formats.js'
import { checkDictionary, checkLevel, formatOption } from '../../lib/codec-options.js'
import type { CodecModule } from '../../lib/codec.js'
import { Status } from '../../lib/status.js'
import { crc32 as jsCrc32 } from '../../lib/codecs/checksum.js'
import { wrapperOf, type Crc32, type DeflateBody } from '../../lib/codecs/deflate.js'
import { deflateModule } from '../../lib/codecs/deflate-module.js'
import { ZstdFrameWalker } from '../../lib/codecs/zstd-frame-format.js'
import { seekableOrPlain } from '../../lib/codecs/zstd-seekable-encode.js'
import { checkEncoderWindow } from '../../lib/codecs/zstd-window.js'
import { largeWindowRefusal } from '../../lib/codecs/brotli-window.js'

/** The native handle as used here (see the module comment). */
interface NativeHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void
  onerror: (message: string, errno: number, code: string) => void
  reset(): void
}
interface NativeStream {
  _handle: NativeHandle | null
  _writeState: Uint32Array
  close(): void
}

/** Flush flags per engine family: [continue, sync flush, finish]. */
type Flags = readonly [process: number, flush: number, finish: number]
const C = zlib.constants as Record<string, number>
const ZLIB_FLAGS: Flags = [C.Z_NO_FLUSH!, C.Z_SYNC_FLUSH!, C.Z_FINISH!]
/** A deflate encoder's with `fullFlush`: Z_FULL_FLUSH drops the history at each sync point. */
const ZLIB_FULL_FLUSH_FLAGS: Flags = [C.Z_NO_FLUSH!, C.Z_FULL_FLUSH!, C.Z_FINISH!]
const BROTLI_FLAGS: Flags = [C.BROTLI_OPERATION_PROCESS!, C.BROTLI_OPERATION_FLUSH!, C.BROTLI_OPERATION_FINISH!]
// ZSTD_e_continue, ZSTD_e_flush, ZSTD_e_end (zstd.h); named in zlib.constants from Node 22.15.
const ZSTD_FLAGS: Flags = [C.ZSTD_e_continue ?? 0, C.ZSTD_e_flush ?? 1, C.ZSTD_e_end ?? 2]

const EMPTY = new Uint8Array(0)

type Factories = typeof zlib & {
  createZstdDecompress?: (options?: object) => unknown
  createZstdCompress?: (options?: object) => unknown
  crc32?: (data: Uint8Array, value?: number) => number
}
const z = zlib as Factories

function requireZstd(): void {
  if (typeof z.createZstdDecompress !== 'function' || typeof z.createZstdCompress !== 'function') {
    throw new CodecError(
      'ENGINE_UNAVAILABLE',
      'zstd',
      `engine 'node' needs node:zlib zstd support (zlib.createZstdDecompress, Node >= 22.15); this is Node ${process.versions.node}. Use engine 'wasm'.`,
    )
  }
}

/** One native (de)compressor and its synchronous step. */
class NativeStep {
  private stream: NativeStream | null = null
  private handle!: NativeHandle
  private state!: Uint32Array
  /** The error reported by the last step, if any. */
  error: { message: string; errno: number; code: string } | null = null
  /** Input used and output produced by the last successful step. */
  used = 0
  produced = 0

  /**
   * `renewOnReset`: `reset()` makes a new native stream instead of resetting the handle.
   * A node:zlib zstd handle loses the dictionary and the parameters it was created with
   * on `reset()` (seen on Node 22.23): a decoder then fails with "Data corruption" on the
   * frames it decoded before, an encoder writes frames without the dictionary at the
   * default level (test/node-engine.test.ts). For brotli handles made with a dictionary
   * too: node:zlib documents no reset that keeps one.
   */
  constructor(
    private readonly format: Format,
    private readonly create: () => unknown,
    private readonly renewOnReset = false,
  ) {
    this.open()
  }

  private open(): void {
    const stream = this.create() as NativeStream
    if (!stream._handle || typeof stream._handle.writeSync !== 'function' || !(stream._writeState instanceof Uint32Array)) {
      throw new CodecError('ENGINE_UNAVAILABLE', this.format, `this Node (${process.versions.node}) lacks the zlib handle API the node engine uses (_handle.writeSync, _writeState)`)
    }
    this.stream = stream
    this.handle = stream._handle
    this.state = stream._writeState
    this.handle.onerror = (message, errno, code) => {
      this.error = { message, errno, code }
    }
  }

  /** One step over `src[inOff..inEnd)`; returns false when the native side reported an error (see `error`). */
  write(flag: number, src: Uint8Array, inOff: number, dst: Uint8Array, outOff: number, outLen = dst.length - outOff, inEnd = src.length): boolean {
    if (!this.stream) throw new CodecError('INVALID_OPTION', this.format, 'codec used after dispose()')
    const inLen = inEnd - inOff
    this.error = null
    this.handle.writeSync(flag, src, inOff, inLen, dst, outOff, outLen)
    if (this.error) return false
    this.used = inLen - this.state[1]!
    this.produced = outLen - this.state[0]!
    return true
  }

  reset(): void {
    if (!this.stream) return
    this.error = null
    if (this.renewOnReset) {
      this.stream.close()
      this.open()
    } else {
      this.handle.reset()
    }
  }

  dispose(): void {
    if (!this.stream) return
    const s = this.stream
    this.stream = null
    s.close()
  }
}

/**
 * A native decompressor as a body: raw deflate under the gzip/zlib parser, or a whole
 * brotli/zstd stream. Finds the end of the stream as the module comment describes.
 *
 * A preset dictionary needs a handle made with it: node:zlib sets a raw inflater's
 * dictionary when the handle is created and again at each `reset()` (src/node_zlib.cc
 * `SetDictionary`), and has no call to set one later. So a body keeps its plain handle
 * and, once `preset()` asks, a second one with the dictionary; a zlib stream uses the
 * second only when its header says FDICT, as the js and wasm engines do.
 */
class NativeBody implements DeflateBody {
  inPos = 0
  outPos = 0
  failure: Failure | null = null
  /** The handle in use: `plain` or `primed`. */
  private step: NativeStep
  private readonly plain: NativeStep
  /** The handle made with `primedWith` as its dictionary. */
  private primed: NativeStep | null = null
  private primedWith: Uint8Array | null = null
  private ended = false
  private bad = false
  private readonly probeOut = new Uint8Array(1)
  /** A byte the full-destination probe decoded, for the next call; -1 when none. */
  private held = -1

  constructor(
    private readonly format: Format,
    private readonly create: (dictionary?: Uint8Array) => unknown,
    private readonly flags: Flags,
    renewOnReset = false,
  ) {
    this.step = this.plain = new NativeStep(format, () => create(), renewOnReset)
  }

  reset(): void {
    this.plain.reset()
    this.primed?.reset()
    this.step = this.plain
    this.ended = false
    this.bad = false
    this.held = -1
    this.failure = null
  }

  preset(dictionary: Uint8Array): void {
    // An empty dictionary primes nothing (and node:zlib ignores one).
    if (dictionary.length === 0) return
    if (this.primedWith !== dictionary) {
      this.primed?.dispose()
      this.primed = new NativeStep(this.format, () => this.create(dictionary))
      this.primedWith = dictionary
    }
    this.step = this.primed!
  }

  dispose(): void {
    this.plain.dispose()
    this.primed?.dispose()
  }

  run(src: Uint8Array, inStart: number, dst: Uint8Array, outStart: number, inBase: number, _final: boolean): Status {
    this.inPos = inStart
    this.outPos = outStart
    if (this.bad) return Status.InvalidData
    // A byte decoded ahead by the probe below goes out first.
    if (this.held >= 0) {
      if (outStart === dst.length) return Status.DestinationTooSmall
      dst[this.outPos++] = this.held
      this.held = -1
    }
    if (this.ended) return Status.Done
    const step = this.step
    if (this.outPos < dst.length) {
      if (!step.write(this.flags[0], src, this.inPos, dst, this.outPos)) return this.fail(inBase + this.inPos)
      this.inPos += step.used
      this.outPos += step.produced
      // Stopped with input and room left: only the end of the stream does that.
      if (this.inPos < src.length && this.outPos < dst.length) return this.end()
      if (this.outPos < dst.length) return this.endOrMore(inBase)
    }
    // The destination is full (or was empty): node:zlib cannot step into 0 bytes of
    // room (Z_STREAM_ERROR on the deflate family), so one byte of room tells whether
    // output remains (that byte is held for the next call) or the stream ended exactly
    // here, which is then Done, as the span contract requires.
    if (!step.write(this.flags[0], src, this.inPos, this.probeOut, 0, 1)) return this.fail(inBase + this.inPos)
    this.inPos += step.used
    if (step.produced === 1) {
      this.held = this.probeOut[0]!
      return Status.DestinationTooSmall
    }
    if (this.inPos < src.length) return this.end()
    return this.endOrMore(inBase)
  }

  /**
   * All input used, room left: the stream ended exactly here, or needs more. A probe
   * step with the FINISH flag, no input and one byte of room fails with "unexpected end
   * of file" (Z_BUF_ERROR, harmless to the native state) unless the stream has ended.
   */
  private endOrMore(inBase: number): Status {
    const step = this.step
    if (step.write(this.flags[2], EMPTY, 0, this.probeOut, 0, 1)) {
      if (step.produced !== 0) {
        // Cannot happen (a step with room left stops only for input); refuse to lose a byte.
        return this.fail(inBase + this.inPos, 'end-of-stream probe produced output')
      }
      return this.end()
    }
    if (step.error!.code === 'Z_BUF_ERROR') return Status.NeedMoreData
    return this.fail(inBase + this.inPos)
  }

  private end(): Status {
    this.ended = true
    return Status.Done
  }

  private fail(offset: number, message?: string): Status {
    const e = this.step.error
    this.bad = true
    // The native side does not report how far it got before the error, so the offset
    // is where this step's input started: the error lies at or after it.
    this.failure = {
      code: 'INVALID_DATA',
      message: message ?? `${e?.message ?? 'invalid data'} (${e?.code ?? 'native error'}, in the input from this offset on)`,
      offset,
    }
    return Status.InvalidData
  }
}

/** brotli: the native body is the whole decoder. */
class NativeDecoder implements Decoder {
  consumed = 0
  written = 0
  failure: Failure | null = null
  readonly contentSize = -1
  private total = 0
  /** A large-window stream, refused at its first byte as the wasm engine refuses it. */
  private refused: Failure | null = null

  constructor(
    readonly format: Format,
    private readonly body: NativeBody,
  ) {}

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    if (this.total === 0 && src.length > 0 && this.refused === null) {
      const why = largeWindowRefusal(src)
      if (why) this.refused = { code: 'LIMIT_EXCEEDED', message: why, offset: 0 }
    }
    if (this.refused) {
      this.consumed = 0
      this.written = 0
      this.failure = this.refused
      return Status.InvalidData
    }
    const status = this.body.run(src, 0, dst, 0, this.total, final)
    this.consumed = this.body.inPos
    this.written = this.body.outPos
    this.total += this.consumed
    this.failure = status === Status.InvalidData ? this.body.failure : null
    return status
  }

  reset(): void {
    this.body.reset()
    this.total = 0
    this.consumed = 0
    this.written = 0
    this.failure = null
    this.refused = null
  }

  dispose(): void {
    this.body.dispose()
  }
}

/**
 * zstd over node:zlib. The native decompressor does not say where a frame ends (a
 * finishing step with no input succeeds whether or not the frame is complete), so a
 * walker reads the frame's own headers to find its end (lib/codecs/zstd-frame-format.ts) and
 * the native side is never given a byte past it. With the whole frame given, a step
 * that leaves output room has flushed everything: the frame is done.
 */
class NativeZstdDecoder implements Decoder {
  readonly format = 'zstd'
  readonly contentSize = -1
  consumed = 0
  written = 0
  failure: Failure | null = null
  private readonly step: NativeStep
  private readonly scanner = new ZstdFrameWalker()
  /** Bytes of the current frame the native side has used. */
  private fed = 0
  private ended = false
  private bad = false
  private readonly probeOut = new Uint8Array(1)
  /** A byte the full-destination probe decoded, for the next call; -1 when none. */
  private held = -1

  constructor(windowLogMax: number | undefined, dictionary: Uint8Array | undefined) {
    const params = windowLogMax === undefined ? {} : { [C.ZSTD_d_windowLogMax ?? 100]: windowLogMax }
    this.step = new NativeStep('zstd', () => z.createZstdDecompress!(dictionary ? { params, dictionary } : { params }), true)
  }

  transform(src: Uint8Array, dst: Uint8Array, _final: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.bad) return Status.InvalidData
    // A byte decoded ahead by the full-destination probe goes out first.
    if (this.held >= 0) {
      if (dst.length === 0) return Status.DestinationTooSmall
      dst[0] = this.held
      this.held = -1
      this.written = 1
    }
    if (this.ended) return Status.Done
    // `src` starts at frame offset `fed`; scan what has not been scanned yet.
    const scanner = this.scanner
    if (!scanner.ended && scanner.scan(src, Math.min(scanner.scanned - this.fed, src.length), src.length) === -2) {
      return this.fail(scanner.error!.message, scanner.error!.offset)
    }
    const limit = scanner.ended ? scanner.scanned - this.fed : src.length
    if (limit === 0 && !scanner.ended) return Status.NeedMoreData
    const step = this.step
    if (this.written < dst.length) {
      const room = dst.length - this.written
      if (!step.write(ZSTD_FLAGS[0], src, 0, dst, this.written, room, limit)) return this.failStep()
      this.fed += step.used
      this.consumed = step.used
      this.written += step.produced
      if (step.produced < room) return this.endOrMore(limit)
    }
    // The destination is full (or was empty): one byte of room tells whether output
    // remains (held for the next call) or the frame ended exactly here (Done).
    if (!step.write(ZSTD_FLAGS[0], src, this.consumed, this.probeOut, 0, 1, limit)) return this.failStep()
    this.fed += step.used
    this.consumed += step.used
    if (step.produced === 1) {
      this.held = this.probeOut[0]!
      return Status.DestinationTooSmall
    }
    return this.endOrMore(limit)
  }

  /** After a step that left output room: the frame ended, or it needs more input. */
  private endOrMore(limit: number): Status {
    const scanner = this.scanner
    if (this.consumed < limit) return this.fail('the native decoder stopped before the end of the frame its headers describe', this.fed)
    if (!scanner.ended || this.fed < scanner.scanned) return Status.NeedMoreData
    this.ended = true
    return Status.Done
  }

  /** A failed native step: the error lies at or after `fed` (the native side does not say how far it got). */
  private failStep(): Status {
    const e = this.step.error!
    return this.fail(`${e.message} (${e.code}, in the input from this offset on)`, this.fed)
  }

  reset(): void {
    this.step.reset()
    this.scanner.reset()
    this.fed = 0
    this.held = -1
    this.ended = false
    this.bad = false
    this.failure = null
    this.consumed = 0
    this.written = 0
  }

  dispose(): void {
    this.step.dispose()
  }

  private fail(message: string, offset: number): Status {
    this.bad = true
    this.failure = { code: 'INVALID_DATA', message, offset }
    return Status.InvalidData
  }
}

/** How a native compressor is driven (see NativeEncoder). */
interface EncoderShape {
  /** brotli from quality 2 up: hold each chunk's last byte back. */
  holdsLast?: boolean
  /** zstd: follow the frame through its headers to know where it ends. */
  zstdFrame?: boolean
  /** Made with a dictionary: a new native stream at `reset()` (see NativeStep). */
  renewOnReset?: boolean
}

/**
 * Any native compressor; writes its own headers and trailers.
 *
 * With `holdsLast` (brotli from quality 2 up, as lib/codecs/brotli.ts explains), the last
 * byte of each chunk is held back and handed over with the next chunk, the flush or the
 * end, so that the last of the input reaches brotli with its finish flag and a stream
 * ending where brotli closed a meta-block gets no empty last meta-block after it.
 */
class NativeEncoder implements Encoder {
  consumed = 0
  written = 0
  failure: Failure | null = null
  private readonly step: NativeStep
  private finished = false
  private readonly holdsLast: boolean
  /** The byte held back, in `held[0]` when `holding`. */
  private readonly held = new Uint8Array(1)
  private holding = false
  /** zstd: the frame being written, followed through its own headers. */
  private readonly frame: ZstdFrameWalker | null

  constructor(
    readonly format: Format,
    create: () => unknown,
    private readonly flags: Flags,
    options: EncoderShape = {},
  ) {
    this.step = new NativeStep(format, create, options.renewOnReset ?? false)
    this.holdsLast = options.holdsLast ?? false
    this.frame = options.zstdFrame ? new ZstdFrameWalker() : null
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.consumed = 0
    this.written = this.drain(dst)
    if (this.pending.length > 0) return Status.DestinationTooSmall
    if (this.finished) return Status.Done
    if (this.holding) {
      if (this.written === dst.length) return Status.DestinationTooSmall
      const last = final && src.length === 0
      this.write(last ? this.flags[2] : this.flags[0], this.held, dst, this.written, 1)
      this.written += this.step.produced
      if (this.step.used === 0) return Status.DestinationTooSmall
      this.holding = false
      if (last) return this.finish(dst)
    }
    const drained = this.written
    // Without `final`, the last byte stays back.
    const end = !final && this.holdsLast && src.length > 0 ? src.length - 1 : src.length
    if (end > 0 || final) {
      if (drained === dst.length) return Status.DestinationTooSmall
      this.write(final ? this.flags[2] : this.flags[0], src, dst, drained, end)
      this.consumed = this.step.used
      this.written = drained + this.step.produced
    }
    if (this.consumed < end) return Status.DestinationTooSmall
    if (!final) {
      if (end < src.length) {
        this.held[0] = src[end]!
        this.holding = true
        this.consumed = src.length
      }
      return Status.Done
    }
    return this.finish(dst)
  }

  /**
   * After a step with the finish flag. zlib and brotli stop a step early only when the
   * stream is complete, and another finishing step after that writes nothing. zstd
   * starts a new frame at a finishing step after the end of one (an empty frame, 9
   * bytes), so when its output fills `dst` exactly, the frame's own headers say whether
   * it is complete (for zlib and brotli the next call finds out).
   */
  private finish(dst: Uint8Array): Status {
    if (this.written < dst.length || this.frame?.ended) {
      this.finished = true
      return Status.Done
    }
    return Status.DestinationTooSmall
  }

  /** One native step over `src[0, end)` into `dst` from `outOff`. */
  private write(flag: number, src: Uint8Array, dst: Uint8Array, outOff: number, end: number): void {
    if (!this.step.write(flag, src, 0, dst, outOff, dst.length - outOff, end)) {
      // Compressors fail only on misuse or memory exhaustion, never on input bytes.
      throw new CodecError('INVALID_DATA', this.format, `native compressor failed: ${this.step.error!.message} (${this.step.error!.code})`)
    }
    if (this.frame && this.step.produced > 0 && this.frame.scan(dst, outOff, outOff + this.step.produced) === -2) {
      throw new CodecError('INVALID_DATA', this.format, `native compressor wrote a frame its headers do not describe: ${this.frame.error!.message}`)
    }
  }

  /**
   * Sync flush. It runs into a scratch buffer until the native side stops with room
   * left, and the result is copied out from a queue: zlib starts a new empty stored
   * block at every Z_SYNC_FLUSH call that finds nothing pending, so flushing straight
   * into a tiny `dst` again and again would never end.
   */
  flush(dst: Uint8Array): Status {
    this.consumed = 0
    if (this.pending.length === 0 && !this.finished) {
      const scratch = (this.scratch ??= new Uint8Array(65536))
      do {
        // The byte held back goes in with the first step.
        this.write(this.flags[1], this.holding ? this.held : EMPTY, scratch, 0, this.holding ? 1 : 0)
        if (this.step.used === 1) this.holding = false
        if (this.step.produced > 0) this.pending.push(scratch.slice(0, this.step.produced))
      } while (this.step.produced === scratch.length)
      // A step that stops with room left has taken all its input.
      if (this.holding) throw new CodecError('INVALID_DATA', this.format, 'native compressor did not take the input of a flush')
    }
    this.written = this.drain(dst)
    return this.pending.length > 0 ? Status.DestinationTooSmall : Status.Done
  }

  /** Output of a flush not yet copied out. */
  private pending: Uint8Array[] = []
  private scratch: Uint8Array | null = null

  private drain(dst: Uint8Array): number {
    let o = 0
    while (this.pending.length > 0 && o < dst.length) {
      const head = this.pending[0]!
      const n = Math.min(head.length, dst.length - o)
      dst.set(head.subarray(0, n), o)
      o += n
      if (n === head.length) this.pending.shift()
      else this.pending[0] = head.subarray(n)
    }
    return o
  }

  reset(): void {
    this.step.reset()
    this.frame?.reset()
    this.pending = []
    this.finished = false
    this.holding = false
    this.consumed = 0
    this.written = 0
  }

  dispose(): void {
    this.step.dispose()
  }
}

type OneShot = (data: Uint8Array, options?: object) => Uint8Array

/**
 * Whether the running Node's `compress`/`decompress` honour a `dictionary` option. Node
 * 20 takes `{ dictionary }` for brotli without error and ignores it (the output decodes
 * without the dictionary), so support is probed, once per format, not assumed from the
 * version: 512 bytes that do not compress are encoded against themselves as the
 * dictionary; an engine that used the dictionary wrote a stream that cannot be decoded
 * without it.
 */
const honoursDictionary = new Map<string, boolean>()

function probeDictionary(name: string, compress: OneShot | undefined, decompress: OneShot | undefined): boolean {
  let known = honoursDictionary.get(name)
  if (known === undefined) {
    known = false
    if (compress && decompress) {
      const sample = new Uint8Array(512)
      let seed = 0x9e3779b9
      for (let i = 0; i < sample.length; i++) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
        sample[i] = seed >>> 24
      }
      try {
        const encoded = compress(sample, { dictionary: sample })
        let alone: Uint8Array | null = null
        try {
          alone = decompress(encoded)
        } catch {
          alone = null
        }
        const withIt = decompress(encoded, { dictionary: sample })
        known = Buffer.compare(withIt, sample) === 0 && (alone === null || Buffer.compare(alone, sample) !== 0)
      } catch {
        known = false
      }
    }
    honoursDictionary.set(name, known)
  }
  return known
}

/**
 * The checked `dictionary` option for a native codec, or undefined; refuses one (never
 * ignores it) where the running Node's zlib does not honour it.
 */
function nativeDictionary(format: 'brotli' | 'zstd', value: unknown): Uint8Array | undefined {
  const dictionary = checkDictionary(format, value)
  if (dictionary === undefined || dictionary.length === 0) return undefined
  const zz = zlib as unknown as Record<string, OneShot | undefined>
  const ok = format === 'brotli' ? probeDictionary(format, zz.brotliCompressSync, zz.brotliDecompressSync) : probeDictionary(format, zz.zstdCompressSync, zz.zstdDecompressSync)
  if (!ok) {
    throw new CodecError('UNSUPPORTED', format, `engine 'node': this Node's zlib (${process.versions.node}) does not honour a ${format} dictionary; use engine 'wasm'`)
  }
  return dictionary
}

/** node:zlib's native CRC-32 (Node >= 20.15), else ours. */
const nativeCrc32: Crc32 =
  typeof z.crc32 === 'function'
    ? (data, crc, start, end) => (start === end ? crc : z.crc32!(data.subarray(start, end), crc))
    : jsCrc32

/** The `node` engine's codec module for `format`. */
export function nodeCodec(format: Format): CodecModule {
  switch (format) {
    case 'gzip':
    case 'deflate':
    case 'deflate-raw':
      return deflateModule(format, {
        body: () => new NativeBody(format, (dictionary) => zlib.createInflateRaw(dictionary ? { dictionary } : {}), ZLIB_FLAGS),
        crc32: () => nativeCrc32,
        encoder: (_format, level, dictionary, fullFlush) => {
          const wrapper = wrapperOf(format)
          // zlib's deflateSetDictionary: FDICT and DICTID for zlib, a primed window for
          // raw deflate (checkDictionary refuses one for gzip).
          const options = dictionary ? { level, dictionary } : { level }
          const create =
            wrapper === 'gzip' ? () => zlib.createGzip(options) : wrapper === 'zlib' ? () => zlib.createDeflate(options) : () => zlib.createDeflateRaw(options)
          return new NativeEncoder(format, create, fullFlush ? ZLIB_FULL_FLUSH_FLAGS : ZLIB_FLAGS)
        },
      })
    case 'brotli':
      return Object.freeze({
        traits: traitsOf(format),
        createDecoder: (options: Record<string, unknown>) => {
          const dictionary = nativeDictionary(format, options.dictionary)
          const create = () => zlib.createBrotliDecompress(dictionary ? ({ dictionary } as object) : {})
          return new NativeDecoder(format, new NativeBody(format, create, BROTLI_FLAGS, dictionary !== undefined))
        },
        createEncoder: (options: Record<string, unknown>) => {
          const dictionary = nativeDictionary(format, options.dictionary)
          const quality = checkLevel(format, options.level)
          const params: Record<number, number> = { [C.BROTLI_PARAM_QUALITY!]: quality }
          // The format table's range (RFC 7932 section 9.1), as on the wasm engine.
          const lgwin = formatOption(format, 'encode', 'lgwin', options.lgwin, 'node') as number | undefined
          if (lgwin !== undefined) params[C.BROTLI_PARAM_LGWIN!] = lgwin
          const create = () => zlib.createBrotliCompress(dictionary ? ({ params, dictionary } as object) : { params })
          // Quality 0 and 1 compress each step's input at once: a byte held back would
          // cost a meta-block of its own.
          return new NativeEncoder(format, create, BROTLI_FLAGS, { holdsLast: quality >= 2, renewOnReset: dictionary !== undefined })
        },
      })
    case 'zstd': {
      requireZstd()
      return Object.freeze({
        traits: traitsOf(format),
        // Unset, libzstd's default window limit (2^27 bytes) applies.
        createDecoder: (options: Record<string, unknown>) =>
          new NativeZstdDecoder(formatOption(format, 'decode', 'maxWindowLog', options.maxWindowLog, 'node') as number | undefined, nativeDictionary(format, options.dictionary)),
        createEncoder: (options: Record<string, unknown>) => {
          const level = checkLevel(format, options.level)
          // XXH64 of the content, on by default as on the wasm engine (node:zlib's default is off).
          const checksum = (formatOption(format, 'encode', 'checksum', options.checksum, 'node') as boolean | undefined) ?? true
          const dictionary = nativeDictionary(format, options.dictionary)
          const params: Record<number, number> = { [C.ZSTD_c_compressionLevel ?? 100]: level, [C.ZSTD_c_checksumFlag ?? 201]: checksum ? 1 : 0 }
          // windowLog and long as on the wasm engine (zstd-window.ts), up to its 2^30.
          const { windowLog, long } = checkEncoderWindow(options)
          if (windowLog !== 0) params[C.ZSTD_c_windowLog ?? 101] = windowLog
          if (long) params[C.ZSTD_c_enableLongDistanceMatching ?? 160] = 1
          // seekable: the same frame splitter and seek table as the wasm engine's (frames
          // without a content size: node:zlib is not told each frame's size).
          return seekableOrPlain(options, () => new NativeEncoder(format, () => z.createZstdCompress!(dictionary ? { params, dictionary } : { params }), ZSTD_FLAGS, { zstdFrame: true, renewOnReset: true }))
        },
      })
    }
    default:
      throw new CodecError('ENGINE_UNAVAILABLE', format, `engine 'node' does not provide ${format}`)
  }
}
