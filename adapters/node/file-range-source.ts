/**
 * A `RangeSource` (lib/range-source.ts) over a file: `fileRangeSource(path)` opens it
 * (and `close()` closes it), `fileRangeSource(handle)` reads an open `FileHandle` (which
 * stays the caller's to close). The size is the file's when the source is made.
 */
import { open, type FileHandle } from 'node:fs/promises'
import { CodecError } from '../../lib/errors.js'
import type { RangeSource } from '../../lib/range-source.js'

/** A `RangeSource` over a file, with `close()`. */
export interface FileRangeSource extends RangeSource {
  /** Closes the file if `fileRangeSource` opened it; a handle passed in is left open. */
  close(): Promise<void>
}

/** Opens `file` (a path, `file:` URL or an open `FileHandle`) as a range source. */
export async function fileRangeSource(file: string | URL | FileHandle): Promise<FileRangeSource> {
  const owned = typeof file === 'string' || file instanceof URL
  const handle = owned ? await open(file, 'r') : file
  let size: number
  try {
    size = (await handle.stat()).size
  } catch (error) {
    if (owned) await handle.close()
    throw error
  }
  return {
    size,
    async read(offset: number, length: number): Promise<Uint8Array> {
      if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > size) {
        throw new CodecError('INVALID_OPTION', 'file', `read(${offset}, ${length}) is outside the file's ${size} bytes`)
      }
      const out = new Uint8Array(length)
      let done = 0
      while (done < length) {
        const { bytesRead } = await handle.read(out, done, length - done, offset + done)
        // The file shrank: the caller's readExactly reports the short read.
        if (bytesRead === 0) return out.subarray(0, done)
        done += bytesRead
      }
      return out
    },
    close: async () => {
      if (owned) await handle.close()
    },
  }
}
