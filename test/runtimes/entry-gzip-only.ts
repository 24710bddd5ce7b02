/**
 * A gzip-only user (test/runtimes/gzip-only.html): imports two factories and does one
 * round trip. The runner watches the page's requests: no zstd or brotli code, and no
 * `.wasm` but the gzip encoder's (zlibng-deflate.wasm; the decoder's kernel is embedded).
 */
// @ts-ignore: resolved through the package's `exports` to dist/, which the type check may run before
import { gzipDecode, gzipEncode } from 'sluice'

const input = new TextEncoder().encode('a gzip-only page '.repeat(1000))
const out = new Response(new Blob([input]).stream().pipeThrough(gzipEncode()).pipeThrough(gzipDecode()))
const bytes = new Uint8Array(await out.arrayBuffer())
;(globalThis as Record<string, unknown>).__sluiceResult = { ok: bytes.length === input.length && bytes.every((b, i) => b === input[i]) }
