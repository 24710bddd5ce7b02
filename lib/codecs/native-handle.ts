/**
 * The lifecycle of what a codec holds in a wasm engine's heap (zstd.ts, brotli.ts):
 * freed on `dispose()`, or by a finalizer when the codec is dropped without it, and
 * refused after `dispose()` (the engine's pointers are gone by then).
 *
 * The native state is a plain object the finalizer keeps, so it must not reference the
 * codec (that would keep the codec alive). What allocating and freeing mean stays in
 * the codec's module, next to the engine calls.
 */
import { CodecError } from '../errors.js'

/** One finalizer per kind of native state, and the function that frees such a state. */
export class NativeLifecycle<S extends object> {
  private readonly finalizer: FinalizationRegistry<S>

  constructor(readonly release: (state: S) => void) {
    this.finalizer = new FinalizationRegistry<S>(release)
  }

  /** A handle for `owner`'s `state`: freed when `owner` is collected without `dispose()`. */
  attach(owner: object, format: string, role: 'decoder' | 'encoder', state: S): NativeHandle<S> {
    this.finalizer.register(owner, state, state)
    return new NativeHandle(this, format, role, state)
  }

  /** Stops watching `state` (it was freed by `dispose()`). */
  detach(state: S): void {
    this.finalizer.unregister(state)
  }
}

/** A codec's native state and whether the codec was disposed. */
export class NativeHandle<S extends object> {
  private disposed = false

  constructor(
    private readonly lifecycle: NativeLifecycle<S>,
    private readonly format: string,
    private readonly role: 'decoder' | 'encoder',
    readonly state: S,
  ) {}

  /** Throws `INVALID_OPTION` when the codec was disposed; call first in every method that uses the engine. */
  check(): void {
    if (this.disposed) throw new CodecError('INVALID_OPTION', this.format, `${this.role} used after dispose()`)
  }

  /** Frees the native state now (it is allocated again on demand). */
  release(): void {
    this.lifecycle.release(this.state)
  }

  /** Frees the native state for good; later calls fail in `check()`. Idempotent. */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    this.lifecycle.release(this.state)
    this.lifecycle.detach(this.state)
  }
}
