/**
 * A zstd-decode-only user (test/runtimes/zstd-decode-only.html): decodes a stream with
 * `zstdDecode()` and encodes nothing. The runner watches the page's requests: the zstd
 * decoder's `.wasm` is fetched, the encoder's and any brotli code are not.
 */
// @ts-ignore: resolved through the package's `exports` to dist/, which the type check may run before
import { zstdDecode } from 'sluice'

const text = new TextEncoder().encode('a zstd-decode-only page')
// A zstd frame (RFC 8878 §3.1.1) built here, so the page needs no encoder: a single-segment
// header with a 2-byte content size (value - 256), a raw block of `text` and a last RLE
// block of 1000 'x'.
const size = text.length + 1000
const frame = new Uint8Array([
  0x28, 0xb5, 0x2f, 0xfd, 0x60, (size - 256) & 0xff, (size - 256) >> 8,
  (text.length << 3) & 0xff, text.length >> 5, 0, ...text,
  ((1000 << 3) | 3) & 0xff, ((1000 << 3) | 3) >> 8, 0, 0x78,
])
const out = new Response(new Blob([frame]).stream().pipeThrough(zstdDecode()))
const bytes = new Uint8Array(await out.arrayBuffer())
const expected = new Uint8Array(size).fill(0x78)
expected.set(text)
;(globalThis as Record<string, unknown>).__sluiceResult = { ok: bytes.length === size && bytes.every((b, i) => b === expected[i]) }
