/**
 * Where the worker module is. From the sources (tests, `tsx`), worker-entry-source.mjs,
 * which loads the TypeScript entry through tsx; the package's build replaces this module
 * (esbuild.config.mjs `workerFilePlugin`) with `new URL('./sluice-worker.js',
 * import.meta.url)`, the worker file it writes beside the build's chunks (a few KB that
 * import them): the pattern bundlers recognise as a file to ship.
 */
export function workerFile(): URL {
  return new URL('./worker-entry-source.mjs', import.meta.url)
}
