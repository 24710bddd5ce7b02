/**
 * Entry for Cloudflare workerd (`workerd test config.capnp`): a worker whose `test()`
 * handler runs the cases. The bundle resolves sluice's `#wasm/<engine>` imports with the
 * `workerd` condition, so every engine's wasm arrives as an imported `WebAssembly.Module`.
 */
// @ts-ignore: resolved through the package's `exports` to dist/, which the type check may run before
import * as root from 'sluice'
// @ts-ignore: resolved through the package's `exports` to dist/, which the type check may run before
import * as fetchAdapter from 'sluice/fetch'
import type { Context, FetchLib, Lib } from './cases.js'
import { runCases } from './harness.js'

export default {
  async test(_controller: unknown, env: { SERVER?: string }) {
    const ctx: Context = {
      runtime: 'workerd',
      lib: root as unknown as Lib,
      fetchLib: fetchAdapter as unknown as FetchLib,
      RS: ReadableStream,
      streamOptions: {},
      globalStreams: true,
      server: env.SERVER || null,
    }
    const counts = await runCases(ctx)
    if (counts.failed > 0) throw new Error(`${counts.failed} case(s) failed`)
  },
}
