/** The `threads` option's types (issue 22); its limits are in lib/options.ts, beside its check. */
/** `threads`: a number of threads, or `'auto'` for the runtime's cores (capped at `MAX_AUTO_THREADS`; 1 where there are no workers). */
export type Threads = number | 'auto'

/** The options this module adds to `encode()` / `decode()`. */
export interface ThreadOptions {
  /**
   * Threads to run on: `1` (default) runs on the caller's thread and starts no worker;
   * more runs block jobs on that many workers of the realm's pool. `'auto'`: the
   * runtime's cores (`os.availableParallelism()`, `navigator.hardwareConcurrency`),
   * capped at 16; 1 on workerd; block mode either way, so the bytes do not depend on
   * the machine. Where a runtime has no workers (workerd), a number above 1 is
   * `ENGINE_UNAVAILABLE`.
   */
  threads?: Threads
  /**
   * Encoders of gzip, deflate, deflate-raw (default 128 KiB, at least 32 KiB) and zstd
   * (default 1 MiB, at least 64 KiB): the block size of block mode, on whenever this is
   * given or `threads > 1`; the output depends on it and never on `threads`. For LZ4
   * it is the frame's block size as always (64 KiB, 256 KiB, 1 MiB or 4 MiB), and the
   * output is the serial encoder's, whatever `threads`.
   */
  blockSize?: number
}

