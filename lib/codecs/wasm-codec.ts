/**
 * The base of the span codecs that run in a wasm engine's heap: zstd's decoder and
 * encoder (zstd-decode.ts, zstd-encode.ts), brotli's (brotli.ts) and zlib-ng's deflate
 * encoder (deflate-zlibng.ts). It holds what the contract (lib/codec.ts, lib/status.ts)
 * asks of each of them the same way, so that each codec keeps only its engine calls:
 *
 * - every call starts with `consumed` and `written` at 0, and throws once the codec was
 *   disposed (the engine's pointers are gone);
 * - `InvalidData` is final: `fail()` records the failure and frees the heap state, and
 *   every later call returns `InvalidData` until `reset()`;
 * - `Done` latches until `reset()`: a decoder's later calls return `Done` and leave their
 *   input unconsumed (the bytes after the end are the caller's to judge), an encoder's
 *   refuse more input (INVALID_OPTION) and return `Done` otherwise;
 * - failure offsets count the input consumed since the last reset (`inputTotal`);
 * - an engine that moves neither input nor output three calls in a row, with input and
 *   room available, is stuck (`stuck()`): `InvalidData`, never a hang;
 * - what a codec holds in the heap is freed on `dispose()`, or by a finalizer when the
 *   codec is dropped without it (`HeapLifecycle`).
 *
 * The heap state is a plain object the finalizer keeps, so it must not reference the
 * codec (that would keep the codec alive). What allocating and freeing mean stays in
 * the codec's module, next to the engine calls.
 */
import { CodecError, type ErrorCode, type Failure } from '../errors.js'
import { Status } from '../status.js'

/** An empty input, for encoders' `flush()`. */
export const EMPTY = /* @__PURE__ */ new Uint8Array(0)

/**
 * One per kind of heap state: the function that frees such a state, and the finalizer
 * that calls it for a codec collected without `dispose()` (registered with the state as
 * its token, unregistered by `dispose()`).
 */
export class HeapLifecycle<S extends object> extends FinalizationRegistry<S> {
  constructor(readonly release: (state: S) => void) {
    super(release)
  }
}

const enum Latch {
  Open,
  /** The frame or stream ended: `Done` until `reset()`. */
  Done,
  /** `InvalidData` was returned: `failure` is set until `reset()`. */
  Failed,
}

/** What a call asks of `run()` when it comes from `transform()`: `final` or not. */
export const MORE = 0
export const FINAL = 1

export abstract class WasmCodec<S extends object> {
  // Assigned by the constructor and only declared here, so that no class field is emitted
  // for them (bytes in the bundle of every wasm codec).
  declare readonly format: string
  private declare readonly role: 'decoder' | 'encoder'
  private declare readonly engine: string
  private declare readonly lifecycle: HeapLifecycle<S>
  /** The codec's heap state. */
  protected declare readonly state: S
  consumed = 0
  written = 0
  failure: Failure | null = null
  /** Input consumed since the last reset, up to the start of the current call. */
  protected inputTotal = 0
  private latch = Latch.Open
  /** Engine calls in a row, within this call, that moved neither input nor output. */
  private stalls = 0
  private disposed = false

  /**
   * `engine` names the engine in messages ('zstd engine'); `state` is what the codec
   * holds in the heap, freed by `lifecycle.release`.
   */
  constructor(format: string, role: 'decoder' | 'encoder', engine: string, lifecycle: HeapLifecycle<S>, state: S) {
    this.format = format
    this.role = role
    this.engine = engine
    this.lifecycle = lifecycle
    this.state = state
    lifecycle.register(this, state, state)
  }

  /**
   * The codec's own step, on an open codec with the counts at 0: `op` is what the call
   * asks for (`FINAL` or `MORE` from `transform()`, or a codec's own operation, such
   * as an encoder's flush).
   */
  protected abstract run(src: Uint8Array, dst: Uint8Array, op: number): Status

  /** What `reset()` does besides the latch and the counts. */
  protected abstract restart(): void

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    return this.call(src, dst, final ? FINAL : MORE)
  }

  /** One call of the contract: the latch, then `run()`, then the input counted. */
  protected call(src: Uint8Array, dst: Uint8Array, op: number): Status {
    this.check()
    this.consumed = 0
    this.written = 0
    this.stalls = 0
    if (this.latch === Latch.Failed) return Status.InvalidData
    if (this.latch === Latch.Done) {
      if (this.role === 'encoder' && src.length > 0) return this.fail('INVALID_OPTION', `${src.length} bytes of input after the end of the stream; reset() first`)
      return Status.Done
    }
    const status = this.run(src, dst, op)
    this.inputTotal += this.consumed
    return status
  }

  /**
   * Fails the codec: `InvalidData` until `reset()`, the heap state freed. The offset
   * defaults to the input consumed so far.
   */
  protected fail(code: ErrorCode, message: string, offset = this.inputTotal + this.consumed): Status {
    this.failure = { code, message, offset }
    this.latch = Latch.Failed
    this.release()
    return Status.InvalidData
  }

  /** The end of the frame or stream: `Done` until `reset()`; the heap state freed unless `keep`. */
  protected done(keep = false): Status {
    this.latch = Latch.Done
    if (!keep) this.release()
    return Status.Done
  }

  /**
   * After an engine call without an error: whether the engine is stuck, having moved
   * neither input nor output (`moved` false) three times in a row; it has then failed the
   * codec (`noProgress()`).
   */
  protected stuck(moved: boolean): boolean {
    if (moved) {
      this.stalls = 0
      return false
    }
    if (++this.stalls <= 2) return false
    this.noProgress()
    return true
  }

  /** Fails the codec: the engine gave back neither progress nor an error. */
  protected noProgress(): Status {
    return this.fail('INVALID_DATA', `${this.engine} made no progress`)
  }

  /** Throws `INVALID_OPTION` when the codec was disposed. */
  protected check(): void {
    if (this.disposed) throw new CodecError('INVALID_OPTION', this.format, `${this.role} used after dispose()`)
  }

  /** Frees the heap state now (the codec allocates it again on demand). */
  protected release(): void {
    this.lifecycle.release(this.state)
  }

  reset(): void {
    this.check()
    this.restart()
    this.latch = Latch.Open
    this.failure = null
    this.inputTotal = 0
    this.consumed = 0
    this.written = 0
  }

  /** Frees the heap state for good; later calls throw. Idempotent. */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    this.lifecycle.release(this.state)
    this.lifecycle.unregister(this.state)
  }
}
