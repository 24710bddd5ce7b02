/**
 * The brotli engines, chosen by measurement (bench/zstd-brotli-micro.ts):
 *
 * - decoder: `brotli-dec-wasm` (Rust `brotli-decompressor`, 208 kB), the faster and
 *   smaller of the two streaming decoders;
 * - encoder: `brotli-wasm` (Rust `brotli`, 1 MB), the only streaming brotli encoder in wasm
 *   of the set.
 *
 * Both are wasm-bindgen builds. Their generated JS glue is not used (it allocates a JS
 * object and a fresh output array per call and fetches its wasm itself); this module
 * calls the raw exports with its own minimal glue. The Rust side still allocates per
 * call inside the wasm heap (it takes ownership of the input copy, and returns its output
 * as a fresh `Vec`): that is the engines' ABI and cannot be avoided without rebuilding
 * them. Each call's input is bounded by the caller (`STEP` below), so that memory is too.
 */
import { brotliDecoderWasm } from './brotli-dec-wasm-source.js'
import { brotliFullWasm } from './brotli-full-wasm-source.js'
import { instantiate } from './instantiate.js'

/** `BrotliStreamResultCode` of both packages. */
export const RESULT_SUCCESS = 1
export const NEEDS_MORE_INPUT = 2
export const NEEDS_MORE_OUTPUT = 3

/** What one engine call did; one reused object per codec. */
export interface BrotliStep {
  /** RESULT_SUCCESS, NEEDS_MORE_INPUT or NEEDS_MORE_OUTPUT; 0 on error. */
  code: number
  /** Bytes of the input the engine consumed. */
  inputUsed: number
  /** Bytes written to dst. */
  produced: number
  /** The engine's error message when `code` is 0. */
  error: string
}

const utf8 = /* @__PURE__ */ new TextDecoder()

/** wasm-bindgen suffixes import names with a hash; match on the stable part. */
function baseName(name: string): string {
  return name.replace(/_[0-9a-f]{16}$/, '')
}

// ---------------------------------------------------------------------------------------
// Decoder: brotli-dec-wasm (wasm-bindgen with reference types and multi-value returns).

interface DecoderExports {
  memory: WebAssembly.Memory
  __wbindgen_malloc(size: number, align: number): number
  __wbindgen_free(pointer: number, size: number, align: number): void
  __wbindgen_externrefs: WebAssembly.Table
  __externref_table_dealloc(index: number): void
  __wbindgen_start(): void
  brotlidecstream_new(): number
  __wbg_brotlidecstream_free(pointer: number, owned: number): void
  brotlidecstream_dec(stream: number, input: number, inputLength: number, outputSize: number): [number, number, number]
  __wbg_get_brotlistreamresult_code(result: number): number
  __wbg_get_brotlistreamresult_input_offset(result: number): number
  __wbg_get_brotlistreamresult_buf(result: number): [number, number]
  __wbg_brotlistreamresult_free(result: number, owned: number): void
}

export class BrotliDecoderEngine {
  private bytes = new Uint8Array(0)

  constructor(private readonly x: DecoderExports) {}

  private heap(): Uint8Array {
    if (this.bytes.buffer !== this.x.memory.buffer) this.bytes = new Uint8Array(this.x.memory.buffer)
    return this.bytes
  }

  /** Bytes of the engine's wasm memory (it grows, never shrinks). */
  memorySize(): number {
    return this.x.memory.buffer.byteLength
  }

  create(): number {
    return this.x.brotlidecstream_new()
  }

  free(stream: number): void {
    this.x.__wbg_brotlidecstream_free(stream, 0)
  }

  /** Decodes `src[srcStart, srcEnd)` into `dst[dstStart, dstStart + room)`. */
  step(stream: number, src: Uint8Array, srcStart: number, srcEnd: number, dst: Uint8Array, dstStart: number, room: number, out: BrotliStep): void {
    const x = this.x
    const length = srcEnd - srcStart
    // The Rust side takes ownership of this copy and frees it (`&[u8]` argument).
    const input = x.__wbindgen_malloc(length, 1)
    this.heap().set(src.subarray(srcStart, srcEnd), input)
    const [result, errorIndex, failed] = x.brotlidecstream_dec(stream, input, length, room)
    if (failed) {
      const error = x.__wbindgen_externrefs.get(errorIndex) as unknown
      x.__externref_table_dealloc(errorIndex)
      out.code = 0
      out.inputUsed = 0
      out.produced = 0
      out.error = error instanceof Error ? error.message : String(error)
      return
    }
    out.code = x.__wbg_get_brotlistreamresult_code(result)
    out.inputUsed = x.__wbg_get_brotlistreamresult_input_offset(result) >>> 0
    const [pointer, produced] = x.__wbg_get_brotlistreamresult_buf(result) // a copy, ours to free
    dst.set(this.heap().subarray(pointer, pointer + produced), dstStart)
    x.__wbindgen_free(pointer, produced, 1)
    x.__wbg_brotlistreamresult_free(result, 0)
    out.produced = produced
    out.error = ''
  }

  static async load(): Promise<BrotliDecoderEngine> {
    let x: DecoderExports | null = null
    const text = (pointer: number, length: number): string => utf8.decode(new Uint8Array(x!.memory.buffer, pointer, length))
    const writeString = (retptr: number, value: string): void => {
      const encoded = new TextEncoder().encode(value)
      const pointer = x!.__wbindgen_malloc(encoded.length, 1)
      new Uint8Array(x!.memory.buffer).set(encoded, pointer)
      const view = new DataView(x!.memory.buffer)
      view.setInt32(retptr, pointer, true)
      view.setInt32(retptr + 4, encoded.length, true)
    }
    const known: Record<string, (...args: never[]) => unknown> = {
      __wbg_new: () => new Error(),
      __wbg_Error: (pointer: number, length: number) => new Error(text(pointer, length)),
      __wbg_stack: (retptr: number, error: Error) => writeString(retptr, String(error.stack ?? '')),
      // Panic messages: freed, not printed (lib/ does no I/O); the panic itself throws.
      __wbg_error: (pointer: number, length: number) => x!.__wbindgen_free(pointer, length, 1),
      __wbg___wbindgen_throw: (pointer: number, length: number) => {
        throw new Error(text(pointer, length))
      },
      __wbindgen_init_externref_table: () => {
        const table = x!.__wbindgen_externrefs
        const base = table.grow(4)
        table.set(0, undefined)
        table.set(base, undefined)
        table.set(base + 1, null)
        table.set(base + 2, true)
        table.set(base + 3, false)
      },
    }
    const instance = await instantiate(brotliDecoderWasm(), (module) => imports(module, known))
    x = instance.exports as unknown as DecoderExports
    x.__wbindgen_start()
    return new BrotliDecoderEngine(x)
  }
}

// ---------------------------------------------------------------------------------------
// Encoder: brotli-wasm (older wasm-bindgen: results through a return area on the shadow
// stack, JS objects in a slab indexed from 32).

interface EncoderExports {
  memory: WebAssembly.Memory
  __wbindgen_malloc(size: number): number
  __wbindgen_realloc(pointer: number, oldSize: number, newSize: number): number
  __wbindgen_free(pointer: number, size: number): void
  __wbindgen_add_to_stack_pointer(delta: number): number
  compressstream_new(hasQuality: number, quality: number): number
  __wbg_compressstream_free(stream: number): void
  compressstream_compress(retptr: number, stream: number, input: number, inputLength: number, outputSize: number): void
  __wbg_get_brotlistreamresult_code(result: number): number
  __wbg_get_brotlistreamresult_input_offset(result: number): number
  __wbg_get_brotlistreamresult_buf(retptr: number, result: number): void
  __wbg_brotlistreamresult_free(result: number): void
}

export class BrotliEncoderEngine {
  private bytes = new Uint8Array(0)
  private words = new Int32Array(0)

  constructor(
    private readonly x: EncoderExports,
    private readonly takeObject: (index: number) => unknown,
  ) {}

  private refresh(): void {
    if (this.bytes.buffer !== this.x.memory.buffer) {
      this.bytes = new Uint8Array(this.x.memory.buffer)
      this.words = new Int32Array(this.x.memory.buffer)
    }
  }

  /** Bytes of the engine's wasm memory (it grows, never shrinks). */
  memorySize(): number {
    return this.x.memory.buffer.byteLength
  }

  /** A streaming encoder at `quality` (its window is the engine's fixed lgwin 22). */
  create(quality: number): number {
    return this.x.compressstream_new(1, quality)
  }

  free(stream: number): void {
    this.x.__wbg_compressstream_free(stream)
  }

  /**
   * Encodes `src[srcStart, srcEnd)` (BROTLI_OPERATION_PROCESS), or finishes the stream
   * when `src` is null (BROTLI_OPERATION_FINISH), writing at most `room` bytes to dst.
   */
  step(stream: number, src: Uint8Array | null, srcStart: number, srcEnd: number, dst: Uint8Array, dstStart: number, room: number, out: BrotliStep): void {
    const x = this.x
    const retptr = x.__wbindgen_add_to_stack_pointer(-16)
    try {
      let input = 0
      let length = 0
      if (src !== null) {
        length = srcEnd - srcStart
        // Owned by the Rust side (`Option<Box<[u8]>>`), which frees it.
        input = x.__wbindgen_malloc(length)
        this.refresh()
        this.bytes.set(src.subarray(srcStart, srcEnd), input)
      }
      x.compressstream_compress(retptr, stream, input, length, room)
      this.refresh()
      const result = this.words[retptr >>> 2]!
      const errorIndex = this.words[(retptr >>> 2) + 1]!
      if (this.words[(retptr >>> 2) + 2]) {
        const error = this.takeObject(errorIndex)
        out.code = 0
        out.inputUsed = 0
        out.produced = 0
        out.error = error instanceof Error ? error.message : String(error)
        return
      }
      out.code = x.__wbg_get_brotlistreamresult_code(result) >>> 0
      out.inputUsed = x.__wbg_get_brotlistreamresult_input_offset(result) >>> 0
      x.__wbg_get_brotlistreamresult_buf(retptr, result) // a copy, ours to free
      this.refresh()
      const pointer = this.words[retptr >>> 2]!
      const produced = this.words[(retptr >>> 2) + 1]!
      dst.set(this.bytes.subarray(pointer, pointer + produced), dstStart)
      x.__wbindgen_free(pointer, produced)
      x.__wbg_brotlistreamresult_free(result)
      out.produced = produced
      out.error = ''
    } finally {
      x.__wbindgen_add_to_stack_pointer(16)
    }
  }

  static async load(): Promise<BrotliEncoderEngine> {
    let x: EncoderExports | null = null
    // wasm-bindgen's object slab: 32 slots for borrowed values, then the constants
    // undefined, null, true, false at 32..35, then free-listed entries.
    const slab: unknown[] = new Array(32).fill(undefined)
    slab.push(undefined, null, true, false)
    let next = slab.length
    const add = (value: unknown): number => {
      if (next === slab.length) slab.push(slab.length + 1)
      const index = next
      next = slab[index] as number
      slab[index] = value
      return index
    }
    const drop = (index: number): void => {
      if (index < 36) return
      slab[index] = next
      next = index
    }
    const take = (index: number): unknown => {
      const value = slab[index]
      drop(index)
      return value
    }
    const text = (pointer: number, length: number): string => utf8.decode(new Uint8Array(x!.memory.buffer, pointer, length))
    const writeString = (retptr: number, value: string): void => {
      const encoded = new TextEncoder().encode(value)
      const pointer = x!.__wbindgen_malloc(encoded.length)
      new Uint8Array(x!.memory.buffer).set(encoded, pointer)
      const view = new DataView(x!.memory.buffer)
      view.setInt32(retptr, pointer, true)
      view.setInt32(retptr + 4, encoded.length, true)
    }
    const known: Record<string, (...args: never[]) => unknown> = {
      __wbindgen_is_undefined: (index: number) => slab[index] === undefined,
      __wbindgen_is_object: (index: number) => typeof slab[index] === 'object' && slab[index] !== null,
      __wbindgen_string_new: (pointer: number, length: number) => add(text(pointer, length)),
      __wbindgen_error_new: (pointer: number, length: number) => add(new Error(text(pointer, length))),
      __wbindgen_json_serialize: (retptr: number, index: number) => writeString(retptr, JSON.stringify(slab[index] ?? null)),
      __wbg_new: () => add(new Error()),
      __wbg_stack: (retptr: number, index: number) => writeString(retptr, String((slab[index] as Error).stack ?? '')),
      __wbg_error: (pointer: number, length: number) => x!.__wbindgen_free(pointer, length),
      __wbindgen_object_drop_ref: (index: number) => drop(index),
      __wbindgen_throw: (pointer: number, length: number) => {
        throw new Error(text(pointer, length))
      },
    }
    const instance = await instantiate(brotliFullWasm(), (module) => imports(module, known))
    x = instance.exports as unknown as EncoderExports
    return new BrotliEncoderEngine(x, take)
  }
}

/** Builds the import object a module asks for from `known` (by name without hash). */
function imports(module: WebAssembly.Module, known: Record<string, (...args: never[]) => unknown>): WebAssembly.Imports {
  const result: Record<string, Record<string, unknown>> = {}
  for (const entry of WebAssembly.Module.imports(module)) {
    const fn = known[baseName(entry.name)]
    if (entry.kind !== 'function' || !fn) throw new Error(`brotli engine: unexpected import ${entry.module}.${entry.name}`)
    ;(result[entry.module] ??= {})[entry.name] = fn
  }
  return result as WebAssembly.Imports
}

let loading: Promise<[BrotliDecoderEngine, BrotliEncoderEngine]> | null = null

/** Loads and instantiates both engines once. */
export function loadBrotliEngines(): Promise<[BrotliDecoderEngine, BrotliEncoderEngine]> {
  loading ??= Promise.all([BrotliDecoderEngine.load(), BrotliEncoderEngine.load()])
  loading.catch(() => (loading = null))
  return loading
}
