/**
 * zstd dictionaries for the wasm codecs (the `dictionary` option, checked and copied by
 * formats.ts `checkDictionary`): bytes that start with the magic 37 A4 30 EC are a
 * trained dictionary (RFC 8878 §5: entropy tables, an ID, content), loaded with
 * `ZSTD_*Ctx_loadDictionary`; anything else is raw content, referenced as a prefix with
 * `ZSTD_*Ctx_refPrefix`. `dictionaryType: 'raw'` takes any bytes as raw content (RFC
 * 9842's 'dcz' does).
 *
 * A prefix is referenced again at each frame (libzstd forgets it at the end of the
 * frame); a decoder's trained dictionary stays loaded across frames
 * (`ZSTD_DCtx_reset(session_only)` keeps it), an encoder's is loaded again at each frame
 * (`ZSTD_initCStream` clears it, zstd.h). An encoder with a trained dictionary writes its
 * ID into the frame header (Dictionary_ID, RFC 8878 §3.1.1.1.3); a decoder refuses a
 * frame that names another ID before decoding any of it (zstd-decode.ts).
 */
import { CodecError, type ErrorCode } from '../errors.js'
import { readU32LE } from '../endian.js'
import { checkDictionary, formatOption } from '../codec-options.js'
import type { Role } from '../codec.js'
import type { ZstdHeapState } from './zstd-heap.js'
import { zstdErrorCode, zstdErrorName, type ZstdEngine } from './wasm/zstd-engine.js'
import { wasmMemoryFull } from './wasm/memory-full.js'

const FORMAT = 'zstd'

/** Magic number of a trained dictionary (RFC 8878 §5, little-endian 37 A4 30 EC). */
const DICTIONARY_MAGIC = 0xec30a437
/** `ZSTD_error_memory_allocation`: also how libzstd reports corrupt entropy tables. */
const MEMORY_ALLOCATION = 64

/** Trained dictionaries (checked copies) each instance loaded once without complaint. */
const checked = /* @__PURE__ */ new WeakMap<ZstdEngine, WeakSet<Uint8Array>>()

/** A `dictionary` option as the codecs use it: its bytes and, if trained, its ID. */
export interface ZstdDictionary {
  readonly bytes: Uint8Array
  /** Whether the bytes are a trained dictionary (magic); raw content otherwise. */
  readonly trained: boolean
  /** Dictionary_ID of a trained dictionary (RFC 8878 §5), 0 for raw content. */
  readonly id: number
}

/**
 * The `dictionary` option of a codec of `role` on `lib`; `dictionaryType: 'raw'` takes it
 * as raw content even when it starts with the magic, 'auto' (the default) by the magic.
 * A trained dictionary is loaded once here, so that broken entropy tables throw where
 * the codec is created.
 */
export function dictionaryOf(lib: ZstdEngine, role: Role, value: unknown, type: unknown): ZstdDictionary | null {
  const raw = formatOption(FORMAT, role, 'dictionaryType', type, 'wasm') === 'raw'
  const bytes = checkDictionary(FORMAT, value)
  if (bytes === undefined || bytes.length === 0) return null
  const trained = !raw && bytes.length >= 8 && readU32LE(bytes, 0) === DICTIONARY_MAGIC
  const id = trained ? readU32LE(bytes, 4) : 0
  let known = checked.get(lib)
  if (known === undefined) checked.set(lib, (known = new WeakSet()))
  if (trained && !known.has(bytes)) {
    // A caller mistake, so it throws now, where the codec is created, as every bad option
    // does (INVALID_OPTION is thrown at construction, lib/errors.ts), rather than failing
    // the first transform: the encoder loads its dictionary lazily, and libzstd reports
    // broken entropy tables as memory_allocation (ZSTD_createDDict returns NULL).
    const { error, exhausted } = loadTrained(lib, bytes)
    if (exhausted) {
      // Out of memory is LIMIT_EXCEEDED, as everywhere else (errors.ts), not a bad option.
      throw new CodecError('LIMIT_EXCEEDED', FORMAT, wasmMemoryFull(`dictionary: the trained dictionary (ID ${id}, ${bytes.length} bytes)`, "engine: 'node' (Node >= 22.15)"))
    }
    if (error !== 0) {
      throw new CodecError('INVALID_OPTION', FORMAT, `dictionary: the trained dictionary (magic 37 A4 30 EC, ID ${id}, ${bytes.length} bytes) cannot be loaded: ${zstdErrorName(error)}; its entropy tables are corrupt`)
    }
    known.add(bytes)
  }
  return { bytes, trained, id }
}

/** Has `lib` parse a trained dictionary's entropy tables: 0 or a `ZSTD_ErrorCode`, and whether the heap is exhausted. */
function loadTrained(lib: ZstdEngine, bytes: Uint8Array): { error: number; exhausted: boolean } {
  const x = lib.exports
  const copy = x.malloc(bytes.length)
  let error = MEMORY_ALLOCATION
  let exhausted = true
  if (copy !== 0) {
    lib.heap.refresh()
    lib.heap.bytes.set(bytes, copy)
    const result = lib.checkTrained(copy, bytes.length)
    exhausted = result < 0
    error = exhausted ? MEMORY_ALLOCATION : result
    x.free(copy)
  }
  // memory_allocation is also how libzstd reports corrupt entropy tables.
  if (error === MEMORY_ALLOCATION && !exhausted) exhausted = !heapCouldHold(lib, bytes.length)
  lib.heap.refresh()
  return { error, exhausted }
}

/**
 * Whether the wasm heap has room for what loading a trained dictionary of `size` bytes
 * takes (libzstd's DDict: a copy of it and entropy tables of some tens of KiB). libzstd
 * reports both corrupt entropy tables and a failed allocation as memory_allocation
 * (`ZSTD_createDDict` returns NULL either way), so when that happens, a trial allocation
 * tells them apart.
 */
function heapCouldHold(lib: ZstdEngine, size: number): boolean {
  const trial = lib.exports.malloc(size + 64 * 1024)
  if (trial !== 0) lib.exports.free(trial)
  return trial !== 0
}

/**
 * Applies `dictionary` to the context of `state` for the next frame: a prefix again at
 * every frame (libzstd uses it for one frame), a trained dictionary once per context
 * where the context keeps it (`state.loaded`), else again at every frame. Null when it
 * took, else the failure: LIMIT_EXCEEDED when the wasm memory is exhausted,
 * INVALID_OPTION when libzstd refused it.
 */
export function applyDictionary(state: ZstdHeapState, dictionary: ZstdDictionary): { code: ErrorCode; message: string } | null {
  if (state.loaded) return null
  const lib = state.lib
  const size = dictionary.bytes.length
  if (state.dictionary === 0) {
    state.dictionary = lib.exports.malloc(size)
    if (state.dictionary === 0) return { code: 'LIMIT_EXCEEDED', message: wasmMemoryFull(`copying the dictionary (${size} bytes)`, "engine: 'node' (Node >= 22.15)") }
    lib.heap.refresh()
    lib.heap.bytes.set(dictionary.bytes, state.dictionary)
  }
  const result = dictionary.trained ? lib.loadDictionary(state.context, state.dictionary, size) : lib.refPrefix(state.context, state.dictionary, size)
  lib.heap.refresh()
  const error = zstdErrorCode(result)
  if (error === 0) {
    if (lib.keepsDictionary && dictionary.trained) {
      // libzstd loaded its own copy (ZSTD_dlm_byCopy), which the context keeps.
      state.loaded = true
      lib.exports.free(state.dictionary)
      state.dictionary = 0
    }
    return null
  }
  // A trained dictionary was loaded once before (dictionaryOf), and libzstd takes a
  // prefix by reference: memory_allocation here is the heap's.
  const code: ErrorCode = error === MEMORY_ALLOCATION ? 'LIMIT_EXCEEDED' : 'INVALID_OPTION'
  return { code, message: `the ${dictionary.trained ? `trained dictionary (ID ${dictionary.id})` : 'dictionary'} was refused: ${zstdErrorName(error)}` }
}
