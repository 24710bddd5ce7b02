/*
 * sluice's C API over brotli's decoder (decode.h), compiled to wasm32 by
 * scripts/build-engines.mjs. Only what the JS side needs; every pointer is into the
 * module's own memory.
 */
#include <stddef.h>
#include <stdint.h>
#include <brotli/decode.h>
#include <brotli/shared_dictionary.h>

#define EXPORT(name) __attribute__((export_name(#name)))

EXPORT(sb_dec_create) BrotliDecoderState *sb_dec_create(void) {
  return BrotliDecoderCreateInstance(NULL, NULL, NULL);
}

EXPORT(sb_dec_free) void sb_dec_free(BrotliDecoderState *s) { BrotliDecoderDestroyInstance(s); }

/* BROTLI_DECODER_PARAM_DISABLE_RING_BUFFER_REALLOCATION (0), _LARGE_WINDOW (1). 1 when accepted. */
EXPORT(sb_dec_set) int sb_dec_set(BrotliDecoderState *s, int param, uint32_t value) {
  return BrotliDecoderSetParameter(s, (BrotliDecoderParameter)param, value);
}

/*
 * Attaches a dictionary before the first byte is decoded: `type` 0 is raw content (a
 * prefix the stream may refer back into), 1 a serialized shared dictionary. The bytes
 * must stay in place until the decoder is freed. 1 when accepted.
 */
EXPORT(sb_dec_attach) int sb_dec_attach(BrotliDecoderState *s, int type, size_t size, const uint8_t *data) {
  return BrotliDecoderAttachDictionary(s, (BrotliSharedDictionaryType)type, size, data);
}

/*
 * Decodes in[0, in_len) into out[0, out_len). Writes the bytes consumed to io[0] and
 * produced to io[1]. Returns the BrotliDecoderResult (1 success, 2 needs more input,
 * 3 needs more output), or the negative BrotliDecoderErrorCode on error.
 */
EXPORT(sb_dec_step) int sb_dec_step(BrotliDecoderState *s, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, size_t *io) {
  size_t avail_in = in_len, avail_out = out_len;
  const uint8_t *next_in = in;
  uint8_t *next_out = out;
  BrotliDecoderResult r = BrotliDecoderDecompressStream(s, &avail_in, &next_in, &avail_out, &next_out, NULL);
  io[0] = in_len - avail_in;
  io[1] = out_len - avail_out;
  if (r == BROTLI_DECODER_RESULT_ERROR) return (int)BrotliDecoderGetErrorCode(s);
  return (int)r;
}

EXPORT(sb_dec_version) uint32_t sb_dec_version(void) { return BrotliDecoderVersion(); }
