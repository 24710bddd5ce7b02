/**
 * A starting worker's warm-up (issue 32): before the pool (./pool.ts) counts a worker as
 * ready, the worker loads what the call's jobs run on (the engine's code and its
 * WebAssembly, compiled and instantiated once per worker) without running a job. The
 * pool sends the latest job of the call with its bytes left out. Measured on a loaded
 * 2-core machine (Node 20): a worker's first 128 KiB gzip block job took 22–49 ms when it
 * loaded the engine itself, 0.6–2.1 ms after a warm-up (0.6–0.8 once the caller's thread
 * had compiled the same WebAssembly, which V8 shares between the threads of a process);
 * so a job handed to a worker that just started no longer keeps a call waiting on the
 * worker's engine load after the caller's thread has run every other job.
 *
 * Each case loads what lib/parallel/jobs.ts `runJob` loads for its kind, through the same
 * factories; a new kind of job fails the type check here until it has its case.
 */
import type { CodecFactories, Job } from '../lib/parallel/jobs.js'
import { loadDeflateTools } from '../lib/parallel/deflate-tools.js'

/** Loads the engine (and the kernels) that `job` runs on; its input is not read. */
export async function warmUp(job: Job, codecs: CodecFactories): Promise<void> {
  switch (job.kind) {
    case 'deflate-block':
      // runJob's deflateBlock: zlib-ng's block kernel for the default engine, else the engine's encoder.
      if (job.engine === 'wasm') await (await loadDeflateTools()).zlibngEngine()
      else (await codecs.createEncoder('deflate-raw', { engine: job.engine, level: job.level })).dispose()
      return
    case 'encode':
      return (await codecs.createEncoder(job.format, job.options as never)).dispose()
    case 'decode':
      return (await codecs.createDecoder(job.format, job.options as never)).dispose()
    case 'lz4-blocks':
      return (await codecs.createDecoder('lz4', { engine: job.engine })).dispose()
    case 'inflate-chunk':
    case 'inflate-resolve':
      // Both run on the chunk decoder's kernel pair (lib/parallel/chunk-kernel.ts).
      await (await import('../lib/parallel/chunk-kernel.js')).chunkKernel()
      return
    case 'arrow-decode':
      return (await codecs.createDecoder(job.format, { engine: 'wasm' })).dispose()
    case 'arrow-encode':
      return (await codecs.createEncoder(job.format, { engine: 'wasm' })).dispose()
    case 'memory':
    case 'xxh32':
      // Page writes, XXH32 in TypeScript: nothing to load.
      return
    default: {
      const unknown: never = job
      throw new Error(`no warm-up for job kind ${JSON.stringify((unknown as { kind: unknown }).kind)}`)
    }
  }
}
