/*
 * sluice's C API over brotli's encoder (encode.h), compiled to wasm32 by
 * scripts/build-engines.mjs. Only what the JS side needs; every pointer is into the
 * module's own memory.
 */
#include <stddef.h>
#include <stdint.h>
#include <brotli/encode.h>
#include <brotli/shared_dictionary.h>

#define EXPORT(name) __attribute__((export_name(#name)))

EXPORT(sb_enc_create) BrotliEncoderState *sb_enc_create(void) {
  return BrotliEncoderCreateInstance(NULL, NULL, NULL);
}

EXPORT(sb_enc_free) void sb_enc_free(BrotliEncoderState *s) { BrotliEncoderDestroyInstance(s); }

/*
 * BrotliEncoderParameter: BROTLI_PARAM_MODE (0), _QUALITY (1), _LGWIN (2), _LGBLOCK (3),
 * _DISABLE_LITERAL_CONTEXT_MODELING (4), _SIZE_HINT (5), _LARGE_WINDOW (6), ... 1 when
 * accepted. Only before the first byte is encoded.
 */
EXPORT(sb_enc_set) int sb_enc_set(BrotliEncoderState *s, int param, uint32_t value) {
  return BrotliEncoderSetParameter(s, (BrotliEncoderParameter)param, value);
}

/*
 * Prepares a dictionary once for any number of encoders: `type` 0 is raw content, 1 a
 * serialized shared dictionary; `quality` is the highest quality it will be used at.
 * The bytes must stay in place until the prepared dictionary is freed. 0 on failure.
 */
EXPORT(sb_enc_prepare) BrotliEncoderPreparedDictionary *sb_enc_prepare(int type, size_t size, const uint8_t *data, int quality) {
  return BrotliEncoderPrepareDictionary((BrotliSharedDictionaryType)type, size, data, quality, NULL, NULL, NULL);
}

EXPORT(sb_enc_prepared_free) void sb_enc_prepared_free(BrotliEncoderPreparedDictionary *d) {
  BrotliEncoderDestroyPreparedDictionary(d);
}

/* Attaches a prepared dictionary before the first byte is encoded. 1 when accepted. */
EXPORT(sb_enc_attach) int sb_enc_attach(BrotliEncoderState *s, const BrotliEncoderPreparedDictionary *d) {
  return BrotliEncoderAttachPreparedDictionary(s, d);
}

/*
 * Encodes in[0, in_len) into out[0, out_len) with `op` (BROTLI_OPERATION_PROCESS 0,
 * _FLUSH 1, _FINISH 2). Writes the bytes consumed to io[0] and produced to io[1].
 * Returns 1 when the operation is complete (FINISH: the stream is finished; FLUSH: all
 * input and pending output written out; PROCESS: the input was taken), 3 when output
 * is pending (call again with more room), 0 on error.
 */
EXPORT(sb_enc_step) int sb_enc_step(BrotliEncoderState *s, int op, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, size_t *io) {
  size_t avail_in = in_len, avail_out = out_len;
  const uint8_t *next_in = in;
  uint8_t *next_out = out;
  if (!BrotliEncoderCompressStream(s, (BrotliEncoderOperation)op, &avail_in, &next_in, &avail_out, &next_out, NULL)) {
    io[0] = io[1] = 0;
    return 0;
  }
  io[0] = in_len - avail_in;
  io[1] = out_len - avail_out;
  if (BrotliEncoderHasMoreOutput(s)) return 3;
  if (op == BROTLI_OPERATION_FINISH) return BrotliEncoderIsFinished(s) ? 1 : 3;
  return avail_in == 0 ? 1 : 2;
}

EXPORT(sb_enc_version) uint32_t sb_enc_version(void) { return BrotliEncoderVersion(); }

/*
 * The encoder calls exit() only where its own invariants are broken ("should never
 * happen", enc/hash_composite_inc.h); a trap ends the call with a JS exception instead
 * of importing WASI's proc_exit.
 */
void exit(int code) {
  (void)code;
  __builtin_trap();
}
