/**
 * The rules between the zstd encoder options of the seekable format that a schema entry
 * of the format table cannot say (each value is checked by the table, lib/formats.ts):
 * `frameSize` only with `seekable`; no `contentSize` (it names one frame's size; a
 * seekable archive writes each frame's); `seekable: { checksums: true }` not with
 * `checksum: false` (the table repeats each frame's own checksum). A leaf, so that the
 * table (`checkOptions`, at every surface) and the codec (created directly) apply it alike.
 */
import { CodecError } from './errors.js'

/** Throws `INVALID_OPTION` when the zstd encoder options `o` break a rule above. */
export function zstdSeekableRules(o: Readonly<Record<string, unknown>>): void {
  const seekable = o.seekable
  if (seekable === undefined || seekable === false) {
    if (o.frameSize !== undefined) throw new CodecError('INVALID_OPTION', 'zstd', 'frameSize applies to seekable archives only; add seekable: true')
    return
  }
  if (o.contentSize !== undefined) {
    throw new CodecError('INVALID_OPTION', 'zstd', 'contentSize names the size of one frame; a seekable archive writes the size of each of its frames itself')
  }
  if (seekable !== true && (seekable as { checksums?: unknown }).checksums === true && o.checksum === false) {
    throw new CodecError('INVALID_OPTION', 'zstd', 'seekable: { checksums: true } writes each frame with its checksum; it cannot be combined with checksum: false')
  }
}
