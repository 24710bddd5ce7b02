/** The `threads` option's types (issue 22); its limits are in lib/options.ts, beside its check. */
import type { GzipIndex } from '../lib/gzip-index/gzip-index.js'

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

/** The option a decoding stream (and `decode()`) takes for parallel decoding. */
export interface DecodeThreadOptions {
  /**
   * zstd, LZ4, gzip, deflate and deflate-raw decoders: threads to decode on
   * (docs/threads.md). With more than 1, a zstd stream of several frames that state
   * their content sizes, an LZ4 frame with independent blocks, BGZF members, or one
   * gzip, zlib or raw deflate stream cut into chunks at guessed block boundaries decode
   * on that many workers, the output in order and the same as the serial decoder's;
   * what cannot be split (one zstd frame, a frame without a content size, dependent LZ4
   * blocks, a zlib stream with a preset dictionary) decodes on this thread as before.
   * Default 1: no worker. `'auto'`: the runtime's cores. A runtime without workers
   * (workerd) refuses a number above 1 with `ENGINE_UNAVAILABLE`.
   */
  threads?: Threads
}

/** The `index` option of `decode()` for gzip, deflate and deflate-raw (docs/threads.md). */
export interface DecodeIndexOptions {
  /**
   * `true`: resolve to `{ data, index }`, the stream's `GzipIndex` built while it
   * decodes (the index `gzipIndex()` builds; with `threads` from the block starts the
   * chunks met). A `GzipIndex` (an index file is read with `decodeGzipIndex`): with
   * `threads`, the spans between its points decode in parallel, each from its point's
   * window; it must be the index of this very file (its size and format), else
   * `INVALID_DATA` / `INVALID_OPTION`.
   */
  index?: true | GzipIndex
}
