/**
 * The one place where sluice turns WebAssembly into a running instance.
 *
 * Where the wasm comes from is each engine's `#wasm/<engine>` import's job (bytes from
 * the portable `*-wasm-source.ts` default or from disk, a precompiled
 * `WebAssembly.Module` in Cloudflare workerd, which refuses to compile wasm from bytes at
 * run time, or a fetched `Response` in browsers); the package's build picks one per
 * runtime by condition without touching the codecs.
 */

/** What a wasm source module may hand over. */
export type WasmSource = WebAssembly.Module | BufferSource | Response

/**
 * Instantiates `source` with `imports`; always asynchronous (browsers forbid large sync
 * compiles). `imports` may be a function of the compiled module, for glue that matches
 * import names (wasm-bindgen suffixes them with hashes that change between builds).
 */
export async function instantiate(
  source: WasmSource | PromiseLike<WasmSource>,
  imports: WebAssembly.Imports | ((module: WebAssembly.Module) => WebAssembly.Imports),
): Promise<WebAssembly.Instance> {
  const resolved = await source
  if (typeof imports === 'function') {
    const module = await compile(resolved)
    return WebAssembly.instantiate(module, imports(module))
  }
  if (resolved instanceof WebAssembly.Module) return WebAssembly.instantiate(resolved, imports)
  if (isResponse(resolved)) {
    // instantiateStreaming compiles while the bytes download; it needs the
    // `application/wasm` content type, so fall back to bytes when it is missing.
    if (typeof WebAssembly.instantiateStreaming === 'function' && resolved.headers.get('content-type') === 'application/wasm') {
      return (await WebAssembly.instantiateStreaming(resolved, imports)).instance
    }
    return (await WebAssembly.instantiate(await resolved.arrayBuffer(), imports)).instance
  }
  return (await WebAssembly.instantiate(resolved, imports)).instance
}

/** Compiles `source` (a no-op for a `WebAssembly.Module`). */
export async function compile(source: WasmSource): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source
  if (isResponse(source)) {
    if (typeof WebAssembly.compileStreaming === 'function' && source.headers.get('content-type') === 'application/wasm') {
      return WebAssembly.compileStreaming(source)
    }
    return WebAssembly.compile(await source.arrayBuffer())
  }
  return WebAssembly.compile(source)
}

function isResponse(value: unknown): value is Response {
  return typeof value === 'object' && value !== null && typeof (value as Response).arrayBuffer === 'function' && typeof (value as Response).headers === 'object'
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/**
 * Decodes standard base64 (the form in which the build embeds wasm for runtimes
 * without file access). Pure JS: `atob` would build a binary string of the whole
 * module first.
 */
export function bytesFromBase64(text: string): Uint8Array {
  const values = new Uint8Array(128)
  for (let i = 0; i < alphabet.length; i++) values[alphabet.charCodeAt(i)] = i
  let length = text.length
  while (length > 0 && text.charCodeAt(length - 1) === 61 /* '=' */) length--
  const out = new Uint8Array((length * 3) >>> 2)
  let o = 0
  let i = 0
  for (; i + 4 <= length; i += 4) {
    const n = (values[text.charCodeAt(i)]! << 18) | (values[text.charCodeAt(i + 1)]! << 12) | (values[text.charCodeAt(i + 2)]! << 6) | values[text.charCodeAt(i + 3)]!
    out[o++] = n >>> 16
    out[o++] = (n >>> 8) & 255
    out[o++] = n & 255
  }
  const rest = length - i
  if (rest >= 2) {
    const n = (values[text.charCodeAt(i)]! << 18) | (values[text.charCodeAt(i + 1)]! << 12) | (rest === 3 ? values[text.charCodeAt(i + 2)]! << 6 : 0)
    out[o++] = n >>> 16
    if (rest === 3) out[o++] = (n >>> 8) & 255
  }
  return out
}
