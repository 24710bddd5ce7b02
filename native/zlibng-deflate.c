/*
 * sluice's C API over zlib-ng's deflate (zlib-ng.h, the native zng_ API), compiled to
 * wasm32 by scripts/build-engines.mjs. Only what lib/codecs/wasm/zlibng-engine.ts
 * needs; every pointer is into the module's own memory.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "zlib-ng.h"
/* zlib-ng's internal state (deflate_state), for zd_reset below: the pinned 2.2.4's layout. */
#include "zbuild.h"
#include "deflate.h"

#define EXPORT(name) __attribute__((export_name(#name)))

/*
 * The gzip header zlib-ng writes: no name, comment or extra field, MTIME 0, OS 255
 * (unknown), as the TypeScript encoder writes it. Read only; every gzip stream points
 * at it (deflateReset keeps it).
 */
static zng_gz_header gzip_header = {0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0};

/* A stream and the level it was created at (the stream first: one pointer for both). */
typedef struct {
  zng_stream stream;
  int level;
} encoder;

/*
 * Level 6's match search. zlib-ng's own table gives level 6 good 8, lazy 16, nice 128,
 * chain 128; sluice's level 6 searches with nice 64 and chain 32 instead (good and lazy
 * as they are): 1.6x node:zlib's level 6 speed instead of 1.1x on text, 1.01x its size
 * instead of 1.001x, within the 1.03x bound issue 23 sets for the default level
 * (measurements and the table of all levels in docs/performance-engines.md). Level 5
 * (nice 32, chain 32) measured as fast and 0.3% larger on text, so level 6 keeps its
 * place between levels 5 and 7. deflateReset restores the table's values, so
 * zd_reset applies these again.
 */
static void tune(zng_stream *s, int level) {
  if (level == 6) zng_deflateTune(s, 8, 16, 64, 32);
}

/*
 * A deflate stream at `level` (0-9) with zlib-ng's own wrapper: `window_bits` 31 for
 * gzip (RFC 1952), 15 for zlib (RFC 1950), -15 for raw deflate (RFC 1951); memLevel 8
 * and the default strategy, as zlib's deflateInit(). 0 when memory is exhausted.
 */
EXPORT(zd_create) zng_stream *zd_create(int level, int window_bits) {
  encoder *e = calloc(1, sizeof(encoder));
  if (!e) return 0;
  e->level = level;
  zng_stream *s = &e->stream;
  if (zng_deflateInit2(s, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    free(e);
    return 0;
  }
  if (window_bits > 15) zng_deflateSetHeader(s, &gzip_header);
  tune(s, level);
  return s;
}

EXPORT(zd_free) void zd_free(zng_stream *s) {
  zng_deflateEnd(s);
  free((encoder *)s);
}

/*
 * Starts a new stream with the same parameters (keeps the allocated window), level 6's
 * search values included, that encodes exactly as a new stream would. deflateReset alone
 * does not: the match finder may compare up to 258 bytes past the input it has (its
 * choice between two candidates can depend on them, though no match extends there), and
 * zlib-ng zeroes those bytes only up to the window's high-water mark, which deflateReset
 * keeps, so a reset stream would read the previous stream's bytes there where a new one
 * reads zeros (deflate.c fill_window, WIN_INIT). The mark goes back to 0, and the chain
 * table (prev) to the zeros deflateInit2 gives it, so that no chain can lead into the
 * previous stream's positions either: a block's bytes never depend on what the stream
 * encoded before (block mode reuses one stream per level for every block; measured: 4 of
 * 14 blocks of text differed after deflateReset alone).
 */
EXPORT(zd_reset) int zd_reset(zng_stream *s) {
  int ret = zng_deflateReset(s);
  if (ret != Z_OK) return ret;
  deflate_state *state = (deflate_state *)s->state;
  state->high_water = 0;
  memset(state->prev, 0, state->w_size * sizeof(Pos));
  tune(s, ((encoder *)s)->level);
  return ret;
}

/*
 * The preset dictionary (zlib: FDICT + DICTID in the header; raw: the window's history),
 * before the first byte is encoded. Z_OK (0) when accepted.
 */
EXPORT(zd_dictionary) int zd_dictionary(zng_stream *s, const uint8_t *data, uint32_t size) {
  return zng_deflateSetDictionary(s, data, size);
}

/*
 * Encodes in[0, in_len) into out[0, out_len) with `flush` (Z_NO_FLUSH 0, Z_SYNC_FLUSH 2,
 * Z_FULL_FLUSH 3, Z_FINISH 4). Writes the bytes consumed to io[0] and produced to io[1];
 * returns deflate()'s code: Z_OK 0, Z_STREAM_END 1, Z_BUF_ERROR -5 (no progress
 * possible), Z_STREAM_ERROR -2.
 */
EXPORT(zd_step) int zd_step(zng_stream *s, int flush, const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t out_len, uint32_t *io) {
  s->next_in = in;
  s->avail_in = in_len;
  s->next_out = out;
  s->avail_out = out_len;
  int ret = zng_deflate(s, flush);
  io[0] = in_len - s->avail_in;
  io[1] = out_len - s->avail_out;
  return ret;
}

/* The most output zng_deflate can produce for `size` input bytes in one Z_FINISH call. */
EXPORT(zd_bound) uint32_t zd_bound(zng_stream *s, uint32_t size) { return zng_deflateBound(s, size); }

/*
 * One block of block mode (lib/parallel/blocks.ts, as pigz writes them), in one call on a
 * stream created with window_bits -15 (raw deflate) and kept for the next block: the
 * stream is reset (zd_reset: as new, its allocations kept), primed with data[0, history)
 * as the window's history (deflateSetDictionary: the previous 32 KiB of the input, or the
 * first block's preset dictionary), and data[history, history + size) is encoded into
 * out, ended by a sync flush (an empty stored block, RFC 1951 section 3.2.4) or, with
 * `last`, by the final block. io[0] and io[1] get the bytes consumed and produced, io[2]
 * the block's checksum: `check` 1 its CRC-32 (RFC 1952), 2 its Adler-32 (RFC 1950), 0
 * none. Returns Z_OK after a sync flush, Z_STREAM_END after the final block, or the
 * first other code deflate() or deflateSetDictionary returned.
 *
 * deflate() sees what the span encoder (lib/codecs/deflate-zlibng.ts) gives it, so that
 * the bytes are the ones block mode always wrote (stored blocks, level 0, are sized by
 * the room deflate() is given): the input in pieces of BLOCK_PIECE, each call BLOCK_PIECE
 * bytes of room, the sync flush a call of its own. The caller gives out_len >=
 * zd_bound(size) + BLOCK_PIECE.
 */
#define BLOCK_PIECE (256 * 1024)

EXPORT(zd_block) int zd_block(zng_stream *s, const uint8_t *data, uint32_t history, uint32_t size, int last, uint8_t *out, uint32_t out_len, uint32_t *io, int check) {
  int ret = zd_reset(s);
  if (ret == Z_OK && history > 0) ret = zng_deflateSetDictionary(s, data, history);
  if (ret != Z_OK) return ret;
  const uint8_t *in = data + history;
  uint32_t taken = 0, written = 0;
  /* The input, piece by piece; the final block with the last piece when `last`. */
  for (;;) {
    uint32_t piece = size - taken < BLOCK_PIECE ? size - taken : BLOCK_PIECE;
    int flush = taken + piece == size && last ? Z_FINISH : Z_NO_FLUSH;
    s->next_in = in + taken;
    s->avail_in = piece;
    do {
      if (out_len - written < BLOCK_PIECE) return Z_BUF_ERROR;
      s->next_out = out + written;
      s->avail_out = BLOCK_PIECE;
      ret = zng_deflate(s, flush);
      written += BLOCK_PIECE - s->avail_out;
      if (ret != Z_OK && ret != Z_STREAM_END) return ret;
    } while (flush == Z_FINISH ? ret != Z_STREAM_END : s->avail_in > 0);
    taken += piece;
    if (taken == size) break;
  }
  /* The sync flush: complete once deflate() leaves room over. */
  if (!last) {
    do {
      if (out_len - written < BLOCK_PIECE) return Z_BUF_ERROR;
      s->next_out = out + written;
      s->avail_out = BLOCK_PIECE;
      ret = zng_deflate(s, Z_SYNC_FLUSH);
      written += BLOCK_PIECE - s->avail_out;
      if (ret != Z_OK) return ret;
    } while (s->avail_out == 0);
  }
  io[0] = taken;
  io[1] = written;
  io[2] = check == 1 ? zng_crc32(0, in, size) : check == 2 ? zng_adler32(1, in, size) : 0;
  return ret;
}
