/**
 * The dictionary transports of RFC 9842 (Compression Dictionary Transport): 'dcz' and
 * 'dcb', a fixed header naming the dictionary by its SHA-256, then a zstd frame or a
 * brotli stream that uses the dictionary as raw content (a prefix).
 *
 * - dcz (section 5): 5E 2A 4D 18 20 00 00 00 (a zstd skippable frame of 32 bytes,
 *   RFC 8878 section 3.1.2), the 32-byte SHA-256, then the zstd frame. The window is at
 *   most max(8 MiB, 1.25 x the dictionary's size) and never above 128 MiB (section
 *   2.2); the decoder refuses a larger one with `LIMIT_EXCEEDED` before allocating it.
 * - dcb (section 4): FF 44 43 42, the SHA-256, then the brotli stream; its window is at
 *   most 16 MiB, which RFC 7932 section 9.1 already caps (lgwin <= 24).
 *
 * The decoder compares the header byte by byte as it arrives, so a wrong dictionary is
 * refused (`CHECKSUM_MISMATCH`, at the first differing hash byte, as the deflate family
 * refuses a zlib DICTID) before any output, then hands the rest to the inner decoder.
 *
 * WebCrypto's digest is asynchronous and codecs are created synchronously: the registry
 * and prepare.ts compute it when a codec is opened (lib/dictionary-digest.ts) and pass
 * it in the options as `dictionaryDigest`.
 */
import type { CodecModule, Decoder, Encoder } from '../codec.js'
import { CodecError, type Failure } from '../errors.js'
import { traitsOf } from '../formats.js'
import { checkDictionary } from '../codec-options.js'
import { Status } from '../status.js'
import { TRANSPORT_HASH_BYTES as HASH_BYTES, transportMagic, type TransportFormat } from '../dictionary-lookup.js'

export type { TransportFormat } from '../dictionary-lookup.js'


/** RFC 9842 section 2.2: windows up to max(8 MiB, 1.25 x dictionary), at most 128 MiB. */
export function dczWindowLimit(dictionaryBytes: number): number {
  return Math.min(2 ** 27, Math.max(2 ** 23, Math.floor(dictionaryBytes * 1.25)))
}

/** The header: magic and the digest. */
export function transportHeader(format: TransportFormat, digest: Uint8Array): Uint8Array {
  const magic = transportMagic(format)
  const header = new Uint8Array(magic.length + HASH_BYTES)
  header.set(magic)
  header.set(digest, magic.length)
  return header
}

function digestOf(format: TransportFormat, options: Record<string, unknown>): Uint8Array {
  const digest = options.dictionaryDigest
  if (!(digest instanceof Uint8Array) || digest.length !== HASH_BYTES) {
    throw new CodecError('INVALID_OPTION', format, 'dictionaryDigest (the SHA-256 of the dictionary) is missing: create the codec through createDecoder()/createEncoder() or a stream, which compute it')
  }
  return digest
}

/** Options of the inner zstd/brotli codec: the dictionary, the window limits. */
function innerOptions(format: TransportFormat, options: Record<string, unknown>, dictionary: Uint8Array, decoding: boolean): Record<string, unknown> {
  // Raw content even if it starts with zstd's trained-dictionary magic (RFC 9842 section 5).
  const inner: Record<string, unknown> = { ...options, dictionary, dictionaryType: 'raw' }
  delete inner.dictionaryDigest
  if (format === 'dcz') {
    const limit = dczWindowLimit(dictionary.length)
    if (decoding) inner.maxWindowBytes = limit
    // The largest power of two within the limit, so that the dictionary stays reachable
    // (at least 2^23 = 8 MiB) while every decoder following section 2.2 accepts it.
    else if (inner.windowLog === undefined) inner.windowLog = Math.floor(Math.log2(limit))
  }
  return inner
}

class TransportDecoder implements Decoder {
  consumed = 0
  written = 0
  private readonly header: Uint8Array
  /** Header bytes matched so far. */
  private matched = 0
  private headerFailure: Failure | null = null

  constructor(
    readonly format: TransportFormat,
    private readonly inner: Decoder,
    digest: Uint8Array,
    private readonly dictionaryBytes: number,
  ) {
    this.header = transportHeader(format, digest)
  }

  get failure(): Failure | null {
    if (this.headerFailure) return this.headerFailure
    const f = this.inner.failure
    return f ? { ...f, offset: f.offset + this.header.length } : null
  }

  get contentSize(): number {
    return this.matched === this.header.length ? (this.inner.contentSize ?? -1) : -1
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.headerFailure) return Status.InvalidData
    const header = this.header
    const magicBytes = transportMagic(this.format).length
    let i = 0
    while (this.matched < header.length && i < src.length) {
      const at = this.matched
      if (src[i] !== header[at]) {
        this.consumed = i
        const message =
          at < magicBytes
            ? `byte ${at} is 0x${src[i]!.toString(16).padStart(2, '0')}; a ${this.format} stream starts with ${hex(transportMagic(this.format))} (RFC 9842)`
            : `the stream's dictionary hash (SHA-256, bytes ${magicBytes}-${header.length - 1}) is not that of the dictionary given (${this.dictionaryBytes} bytes, SHA-256 ${hex(header.subarray(magicBytes))})`
        this.headerFailure = { code: at < magicBytes ? 'INVALID_DATA' : 'CHECKSUM_MISMATCH', message, offset: at }
        return Status.InvalidData
      }
      this.matched++
      i++
    }
    if (this.matched < header.length) {
      this.consumed = i
      return Status.NeedMoreData
    }
    const status = this.inner.transform(i === 0 ? src : src.subarray(i), dst, final)
    this.consumed = i + this.inner.consumed
    this.written = this.inner.written
    return status
  }

  reset(): void {
    this.inner.reset()
    this.matched = 0
    this.headerFailure = null
    this.consumed = 0
    this.written = 0
  }

  dispose(): void {
    this.inner.dispose()
  }
}

class TransportEncoder implements Encoder {
  consumed = 0
  written = 0
  private readonly header: Uint8Array
  /** Header bytes written so far. */
  private sent = 0

  constructor(
    readonly format: TransportFormat,
    private readonly inner: Encoder,
    digest: Uint8Array,
  ) {
    this.header = transportHeader(format, digest)
  }

  get failure(): Failure | null {
    return this.inner.failure
  }

  /** Writes what is left of the header; false when `dst` filled up first. */
  private sendHeader(dst: Uint8Array): boolean {
    const n = Math.min(this.header.length - this.sent, dst.length)
    dst.set(this.header.subarray(this.sent, this.sent + n))
    this.sent += n
    this.written = n
    return this.sent === this.header.length
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.sent < this.header.length && !this.sendHeader(dst)) return Status.DestinationTooSmall
    const before = this.written
    const status = this.inner.transform(src, before === 0 ? dst : dst.subarray(before), final)
    this.consumed = this.inner.consumed
    this.written = before + this.inner.written
    return status
  }

  flush(dst: Uint8Array): Status {
    this.consumed = 0
    this.written = 0
    if (this.sent < this.header.length && !this.sendHeader(dst)) return Status.DestinationTooSmall
    const before = this.written
    const status = this.inner.flush(before === 0 ? dst : dst.subarray(before))
    this.written = before + this.inner.written
    return status
  }

  reset(): void {
    this.inner.reset()
    this.sent = 0
    this.consumed = 0
    this.written = 0
  }

  dispose(): void {
    this.inner.dispose()
  }
}

function hex(bytes: ArrayLike<number>): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ')
}

/** The transport's codec module over the inner format's (zstd for dcz, brotli for dcb). */
export function transportModule(format: TransportFormat, inner: CodecModule): CodecModule {
  return Object.freeze({
    traits: traitsOf(format),
    createDecoder: (options: Record<string, unknown>) => {
      const dictionary = checkDictionary(format, options.dictionary)!
      const digest = digestOf(format, options)
      return new TransportDecoder(format, inner.createDecoder(innerOptions(format, options, dictionary, true)), digest, dictionary.length)
    },
    createEncoder: (options: Record<string, unknown>) => {
      const dictionary = checkDictionary(format, options.dictionary)!
      const digest = digestOf(format, options)
      return new TransportEncoder(format, inner.createEncoder(innerOptions(format, options, dictionary, false)), digest)
    },
  })
}
