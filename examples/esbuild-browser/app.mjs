// The page: fetches a zstd file and decodes it with sluice in the browser. Bundled by
// build.mjs; only zstd's code and zstd-dec.wasm are loaded, on first use.
import { zstdDecode } from 'sluice'

const out = document.querySelector('#out') ?? document.body
try {
  const response = await fetch('./hello.txt.zst')
  if (!response.ok) throw new Error(`HTTP ${response.status}`)
  // Read the stream ourselves: a CodecError (a missing .wasm, corrupt input) keeps its code.
  const reader = response.body.pipeThrough(zstdDecode()).pipeThrough(new TextDecoderStream()).getReader()
  let text = ''
  for (let r; !(r = await reader.read()).done; ) text += r.value
  if (!text.startsWith('hello from an esbuild bundle')) throw new Error(`decoded ${JSON.stringify(text.slice(0, 40))}`)
  out.textContent = `decoded ${text.length} characters`
  // Read by the consumer test (scripts/consumer.mjs) that runs this page in Chromium.
  globalThis.__result = { passed: 1, failed: 0, lines: [`ok esbuild example: decoded ${text.length} characters of zstd`] }
} catch (error) {
  out.textContent = `failed: ${error}`
  globalThis.__result = { passed: 0, failed: 1, lines: [`FAIL esbuild example | ${error?.code ?? ''} ${error}`] }
}
