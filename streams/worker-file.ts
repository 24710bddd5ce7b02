/**
 * Where the worker module is. From the sources (tests, `tsx`), worker-entry-source.mjs,
 * which loads the TypeScript entry through tsx; the package's build replaces this module
 * (esbuild.config.mjs `workerFilePlugin`) with `new URL('./sluice-worker.js',
 * import.meta.url)`, the pattern bundlers recognise as a file to ship: the worker's
 * entry, written beside the build's chunks, is a small module (about 1 KB) that imports
 * the chunks it shares with the library (the registry, the jobs, the worker host).
 */
export function workerFile(): URL {
  return new URL('./worker-entry-source.mjs', import.meta.url)
}
