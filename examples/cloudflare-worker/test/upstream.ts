/**
 * The upstream of the example's test: a second Worker serving the fixtures that
 * scripts/runtimes.mjs made and embedded as data bindings (no network involved).
 */
interface Env {
  [name: string]: ArrayBuffer
}

const routes: Record<string, { binding: string; encoding?: string }> = {
  '/table.arrow.zst': { binding: 'ARROW_ZST' },
  '/table.arrow.lz4': { binding: 'ARROW_LZ4' },
  '/data.json.lz4': { binding: 'JSON_LZ4' },
  '/data.json': { binding: 'JSON_ZSTD', encoding: 'zstd' },
  '/corrupt.arrow.zst': { binding: 'CORRUPT_ZST' },
  '/bomb.json.zst': { binding: 'BOMB_ZST' },
}

export default {
  fetch(request: Request, env: Env): Response {
    const route = routes[new URL(request.url).pathname]
    if (!route) return new Response('not found', { status: 404 })
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream' }
    if (route.encoding) headers['content-encoding'] = route.encoding
    // `encodeBody: "manual"`: the bytes are already encoded; the runtime must not encode them again.
    return new Response(env[route.binding], { headers, encodeBody: 'manual' } as ResponseInit)
  },
}
