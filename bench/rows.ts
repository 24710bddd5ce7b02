// The benchmark rows: ours and the peers, grouped by operation. Each row prepares its
// input outside the timed region and returns one operation over the whole corpus.
import { spawnSync } from 'node:child_process'
import * as zlib from 'node:zlib'
import { createRequire } from 'node:module'
import type { Decoder } from '../lib/codec.js'
import type { Failure } from '../lib/errors.js'
import { Machine } from '../lib/machine.js'
import { Status } from '../lib/status.js'
import { CodecStream } from '../streams/codec-stream.js'
import * as sluice from '../streams/index.js'
import { chunks, drain, streamOf } from './corpus.js'
import { snappyGroups } from './snappy.js'

const require = createRequire(import.meta.url)

export interface Row {
  name: string
  /** Prepares inputs (untimed); returns one timed operation over the corpus. */
  prepare(raw: Uint8Array): Promise<() => unknown>
}

export interface Group {
  name: string
  corpora: string[]
  /** The row the ratios are relative to. */
  reference: string
  rows: Row[]
}

const streamRow = (name: string, pack: (raw: Uint8Array) => Uint8Array | Promise<Uint8Array>, make: () => TransformStream<any, any> | { readable: ReadableStream; writable: WritableStream }): Row => ({
  name,
  async prepare(raw) {
    const parts = chunks(await pack(raw))
    return async () => {
      const n = await drain(streamOf(parts).pipeThrough(make() as TransformStream))
      if (n !== raw.length) throw new Error(`${name}: ${n} bytes out, expected ${raw.length}`)
    }
  },
})

const oneShot = (name: string, pack: (raw: Uint8Array) => Uint8Array | Promise<Uint8Array>, run: (packed: Uint8Array) => unknown): Row => ({
  name,
  async prepare(raw) {
    const packed = await pack(raw)
    return () => run(packed)
  },
})

const identity = (raw: Uint8Array) => raw
const gz = (raw: Uint8Array) => new Uint8Array(zlib.gzipSync(raw, { level: 6 }))
const lz4pack = (raw: Uint8Array) => sluice.encode('lz4', raw)
/** A frame as the `lz4` CLI writes it from a pipe (4 MiB blocks, content checksum, no content size). */
const lz4cli = (raw: Uint8Array) => {
  const r = spawnSync('lz4', ['-c', '-q'], { input: raw, maxBuffer: 1 << 30 })
  if (r.status !== 0) throw new Error('the lz4 CLI is needed for this row (apt-get install -y lz4)')
  return new Uint8Array(r.stdout)
}
/** zstd level 3 frames with content size and checksum, as the CLI writes them. */
const zpack = (raw: Uint8Array) => new Uint8Array(require('zstd-napi').compress(raw, { compressionLevel: 3, checksumFlag: true }))
const brpack = (raw: Uint8Array) => new Uint8Array(zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }))

/** zstd-codec's module is a thenable (awaiting it hangs): hand it out wrapped. */
function zstdCodec(): Promise<any> {
  return new Promise((resolve) => require('zstd-codec').ZstdCodec.run((z: any) => resolve({ Streaming: z.Streaming })))
}

/** Copies input to output: the machine and shell with no codec work, for overhead. */
class CopyCodec implements Decoder {
  readonly format = 'copy'
  consumed = 0
  written = 0
  failure: Failure | null = null
  transform(src: Uint8Array, dst: Uint8Array) {
    const n = Math.min(src.length, dst.length)
    dst.set(src.subarray(0, n))
    this.consumed = this.written = n
    return n < src.length ? Status.DestinationTooSmall : Status.Done
  }
  reset() {}
  dispose() {}
}

export const groups: Group[] = [
  {
    // The machine always writes output into its own blocks, so the fair reference does
    // the same work (one copy of every byte) in a plain TransformStream.
    name: 'stream overhead (identity, 64 KiB chunks)',
    corpora: ['text'],
    reference: 'TransformStream + copy (same work)',
    rows: [
      streamRow('TransformStream (identity, no copy)', identity, () => new TransformStream()),
      streamRow('TransformStream + copy (same work)', identity, () => new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctl) => ctl.enqueue(c.slice()) })),
      streamRow('sluice machine + copy codec', identity, () =>
        new CodecStream({
          format: 'copy',
          allowShared: true,
          open: async (use) => use(new Machine(new CopyCodec(), { format: 'copy', mode: 'encode', blockSize: 64 * 1024, maxOutputBytes: Infinity, concatenated: false })),
        }),
      ),
    ],
  },
  {
    name: 'gzip decode',
    corpora: ['text', 'binary'],
    reference: 'DecompressionStream (native)',
    rows: [
      streamRow('sluice gzipDecode stream', gz, () => sluice.gzipDecode()),
      streamRow('sluice gzipDecode stream, engine js', gz, () => sluice.gzipDecode({ engine: 'js' })),
      streamRow('sluice gzipDecode stream, engine node', gz, () => sluice.gzipDecode({ engine: 'node' })),
      oneShot('sluice decode() one-shot', gz, (p) => sluice.decode('gzip', p)),
      oneShot('sluice decode() one-shot, engine js', gz, (p) => sluice.decode('gzip', p, { engine: 'js' })),
      streamRow('DecompressionStream (native)', gz, () => new DecompressionStream('gzip')),
      oneShot('node:zlib gunzipSync', gz, (p) => zlib.gunzipSync(p)),
      oneShot('fflate gunzipSync', gz, (p) => require('fflate').gunzipSync(p)),
      oneShot('pako ungzip', gz, (p) => require('pako').ungzip(p)),
    ],
  },
  {
    name: 'gzip encode (level 6)',
    corpora: ['text', 'binary'],
    reference: 'CompressionStream (native)',
    rows: [
      {
        name: 'sluice gzipEncode stream',
        async prepare(raw) {
          const parts = chunks(raw)
          return () => drain(streamOf(parts).pipeThrough(sluice.gzipEncode()))
        },
      },
      oneShot('sluice encode() one-shot', identity, (p) => sluice.encode('gzip', p)),
      {
        name: 'CompressionStream (native)',
        async prepare(raw) {
          const parts = chunks(raw)
          return () => drain(streamOf(parts).pipeThrough(new CompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>))
        },
      },
      oneShot('node:zlib gzipSync', identity, (p) => zlib.gzipSync(p, { level: 6 })),
      oneShot('fflate gzipSync', identity, (p) => require('fflate').gzipSync(p, { level: 6 })),
      oneShot('pako gzip', identity, (p) => require('pako').gzip(p, { level: 6 })),
    ],
  },
  {
    name: 'LZ4 frame decode',
    corpora: ['text', 'binary'],
    reference: 'lz4js decompress',
    rows: [
      streamRow('sluice lz4Decode stream', lz4pack, () => sluice.lz4Decode()),
      oneShot('sluice decode() one-shot', lz4pack, (p) => sluice.decode('lz4', p)),
      // lz4js verifies no checksum: on frames without one, both sides do the same work.
      oneShot('sluice decode() one-shot, frames without content checksum', (raw) => sluice.encode('lz4', raw, { contentChecksum: false }), (p) => sluice.decode('lz4', p)),
      oneShot('lz4js decompress', (raw) => new Uint8Array(require('lz4js').compress(raw)), (p) => require('lz4js').decompress(p)),
      oneShot('sluice decode() one-shot, lz4 CLI frame', lz4cli, (p) => sluice.decode('lz4', p)),
      oneShot('lz4js decompress, lz4 CLI frame', lz4cli, (p) => require('lz4js').decompress(p)),
      oneShot('lz4-napi decompressFrameSync (native)', (raw) => new Uint8Array(require('lz4-napi').compressFrameSync(Buffer.from(raw))), (p) => require('lz4-napi').decompressFrameSync(Buffer.from(p.buffer, p.byteOffset, p.length))),
    ],
  },
  {
    name: 'LZ4 frame encode',
    corpora: ['text', 'binary'],
    reference: 'lz4js compress',
    rows: [
      {
        name: 'sluice lz4Encode stream',
        async prepare(raw) {
          const parts = chunks(raw)
          return () => drain(streamOf(parts).pipeThrough(sluice.lz4Encode()))
        },
      },
      oneShot('sluice encode() one-shot', identity, (p) => sluice.encode('lz4', p)),
      oneShot('lz4js compress', identity, (p) => require('lz4js').compress(p)),
      oneShot('lz4-napi compressFrameSync (native)', identity, (p) => require('lz4-napi').compressFrameSync(Buffer.from(p.buffer, p.byteOffset, p.length))),
    ],
  },
  {
    name: 'zstd decode (level 3 frames)',
    corpora: ['text', 'binary'],
    reference: 'zstd-napi (native)',
    rows: [
      streamRow('sluice zstdDecode stream', zpack, () => sluice.zstdDecode()),
      oneShot('sluice decode() one-shot', zpack, (p) => sluice.decode('zstd', p)),
      {
        name: '@foxglove/wasm-zstd (needs exact size)',
        async prepare(raw) {
          const fox = require('@foxglove/wasm-zstd')
          await fox.isLoaded
          const p = zpack(raw)
          return () => fox.decompress(p, raw.length)
        },
      },
      {
        name: 'zstddec decode() (needs size)',
        async prepare(raw) {
          const { ZSTDDecoder } = await import('zstddec')
          const zd = new ZSTDDecoder()
          await zd.init()
          const p = zpack(raw)
          return () => zd.decode(p, raw.length)
        },
      },
      {
        name: '@bokuweb/zstd-wasm',
        async prepare(raw) {
          const boku = require('@bokuweb/zstd-wasm')
          await boku.init()
          const p = zpack(raw)
          return () => boku.decompress(p)
        },
      },
      {
        name: 'zstd-codec Streaming (1 MiB chunks)',
        async prepare(raw) {
          const s = new (await zstdCodec()).Streaming()
          const parts = chunks(zpack(raw), 1 << 20)
          return () => s.decompressChunks(parts, raw.length)
        },
      },
      oneShot('fzstd (pure JS, no checksum check)', zpack, (p) => require('fzstd').decompress(p)),
      oneShot('zstd-napi (native)', zpack, (p) => require('zstd-napi').decompress(p)),
    ],
  },
  {
    name: 'zstd encode (level 3)',
    corpora: ['text', 'binary'],
    reference: 'zstd-codec Streaming (1 MiB chunks)',
    rows: [
      {
        name: 'sluice zstdEncode stream',
        async prepare(raw) {
          const parts = chunks(raw)
          return () => drain(streamOf(parts).pipeThrough(sluice.zstdEncode()))
        },
      },
      oneShot('sluice encode() one-shot', identity, (p) => sluice.encode('zstd', p)),
      // The peers below write no content checksum (libzstd's default); ours does by default.
      oneShot('sluice encode() one-shot, checksum: false (as the peers)', identity, (p) => sluice.encode('zstd', p, { checksum: false })),
      {
        name: '@foxglove/wasm-zstd',
        async prepare(raw) {
          const fox = require('@foxglove/wasm-zstd')
          await fox.isLoaded
          return () => fox.compress(raw, 3)
        },
      },
      {
        name: '@bokuweb/zstd-wasm',
        async prepare(raw) {
          const boku = require('@bokuweb/zstd-wasm')
          await boku.init()
          return () => boku.compress(raw, 3)
        },
      },
      {
        name: 'zstd-codec Streaming (1 MiB chunks)',
        async prepare(raw) {
          const s = new (await zstdCodec()).Streaming()
          const parts = chunks(raw, 1 << 20)
          return () => s.compressChunks(parts, raw.length, 3)
        },
      },
      oneShot('zstd-napi (native)', identity, (p) => require('zstd-napi').compress(p, { compressionLevel: 3 })),
    ],
  },
  {
    name: 'brotli decode (quality 5)',
    corpora: ['text', 'binary'],
    reference: 'node:zlib brotliDecompressSync (native)',
    rows: [
      streamRow('sluice brotliDecode stream', brpack, () => sluice.brotliDecode()),
      oneShot('sluice decode() one-shot', brpack, (p) => sluice.decode('brotli', p)),
      oneShot('node:zlib brotliDecompressSync (native)', brpack, (p) => zlib.brotliDecompressSync(p)),
      streamRow('node:zlib engine via sluice stream', brpack, () => sluice.brotliDecode({ engine: 'node' })),
    ],
  },
  {
    name: 'brotli encode (quality 5)',
    corpora: ['text'],
    reference: 'node:zlib brotliCompressSync (native)',
    rows: [
      {
        name: 'sluice brotliEncode stream',
        async prepare(raw) {
          const parts = chunks(raw)
          return () => drain(streamOf(parts).pipeThrough(sluice.brotliEncode({ level: 5 })))
        },
      },
      oneShot('node:zlib brotliCompressSync (native)', identity, (p) => zlib.brotliCompressSync(p, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } })),
    ],
  },
  // Snappy raw blocks and framing (bench/snappy.ts; standalone it runs its rows interleaved).
  ...snappyGroups,
]
