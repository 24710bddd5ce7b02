/**
 * The lifecycle of what a codec holds in a wasm engine's heap (zstd.ts, brotli.ts,
 * deflate-zlibng.ts: the C library's contexts and staging blocks it allocated there):
 * freed on `dispose()`, or by a finalizer when the codec is dropped without it, and
 * refused after `dispose()` (the engine's pointers are gone by then).
 *
 * The heap state is a plain object of pointers the finalizer keeps, so it must not
 * reference the codec (that would keep the codec alive). What allocating and freeing
 * mean stays in the codec's module, next to the engine calls. ("Native", in this
 * package, means machine code outside WebAssembly, such as node:zlib's handles.)
 */
import { CodecError } from '../errors.js'

/** One finalizer per kind of heap state, and the function that frees such a state. */
export class HeapLifecycle<S extends object> {
  private readonly finalizer: FinalizationRegistry<S>

  constructor(readonly release: (state: S) => void) {
    this.finalizer = new FinalizationRegistry<S>(release)
  }

  /** A handle for `owner`'s `state`: freed when `owner` is collected without `dispose()`. */
  attach(owner: object, format: string, role: 'decoder' | 'encoder', state: S): HeapHandle<S> {
    this.finalizer.register(owner, state, state)
    return new HeapHandle(this, format, role, state)
  }

  /** Stops watching `state` (it was freed by `dispose()`). */
  detach(state: S): void {
    this.finalizer.unregister(state)
  }
}

/** A codec's heap state and whether the codec was disposed. */
export class HeapHandle<S extends object> {
  private disposed = false

  constructor(
    private readonly lifecycle: HeapLifecycle<S>,
    private readonly format: string,
    private readonly role: 'decoder' | 'encoder',
    readonly state: S,
  ) {}

  /** Throws `INVALID_OPTION` when the codec was disposed; call first in every method that uses the engine. */
  check(): void {
    if (this.disposed) throw new CodecError('INVALID_OPTION', this.format, `${this.role} used after dispose()`)
  }

  /** Frees the heap state now (it is allocated again on demand). */
  release(): void {
    this.lifecycle.release(this.state)
  }

  /** Frees the heap state for good; later calls fail in `check()`. Idempotent. */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    this.lifecycle.release(this.state)
    this.lifecycle.detach(this.state)
  }
}
