/**
 * The message of a `LIMIT_EXCEEDED` raised when a wasm engine's memory cannot grow. Each
 * engine is one 32-bit WebAssembly instance per realm, shared by its codecs, whose memory
 * grows to at most 2 GiB (lib/codecs/zstd-window.ts `ENGINE_MAX_MEMORY`; less where the
 * runtime allows less). No option raises it, so the message says so and names the engine
 * to use instead: every `LIMIT_EXCEEDED` names its option or says that none does (issue 30,
 * docs/errors-and-limits.md).
 */

/** `what` could not be allocated in the wasm engine's memory; `instead`: e.g. `engine: 'node'`. */
export function wasmMemoryFull(what: string, instead: string): string {
  return `${what}: the wasm engine's memory cannot grow (one 32-bit heap of at most 2 GiB, shared by its codecs; not an option): use ${instead}`
}
