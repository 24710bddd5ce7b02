import { makeData, RecordBatch, Struct, Vector, type DataType, type Schema } from 'apache-arrow'
import type { Decoder } from '../../lib/codec.js'
import { CodecError } from '../../lib/errors.js'
import { checkKeys } from '../../lib/options.js'
import { loadCodec } from '../../lib/registry.js'
import { decodeBodyBuffers } from '../../lib/arrow/body.js'
import { HeaderTag, type FieldDesc, type MessageDesc, type SchemaDesc } from '../../lib/arrow/metadata.js'
import { checkLimit, checkOneOf, checkThreadsForm } from '../../lib/options.js'
import type { Threads } from '../../streams/thread-options.js'
import { BatchLoader } from './load.js'
import { toSchema } from './schema.js'
import { sizeHints } from './sizes.js'
import type { ArrowThreads } from './threads.js'

/** Options of `readArrow()` and `arrowDecode()`. */
export interface ArrowReadOptions {
  /**
   * Largest message (metadata + body, and the decompressed body) accepted, in bytes.
   * A message declaring more fails with `LIMIT_EXCEEDED` before anything is allocated
   * for it. Default 2 GiB.
   */
  maxMessageBytes?: number
  /**
   * How much of each message is checked before it becomes apache-arrow data.
   * `'default'`: the O(1)-per-buffer checks that keep every buffer access inside its
   * buffer (lengths against buffer sizes, first and last offsets, dictionary ids,
   * compressed lengths against frames); a corrupt file then fails or reads without
   * crashing, but may yield wrong values (the Arrow guide, docs/arrow.md, "Validation").
   * `'full'`: also the O(n) checks of every value (offsets non-decreasing, dictionary
   * indices in range, view bounds, union type ids), so that structural corruption is
   * always a `CodecError`. Arrow C++ (`Validate` / `ValidateFull`) and arrow-rs
   * (`validate` / `validate_full`) draw the line in the same place.
   */
  validate?: 'default' | 'full'
  /**
   * Threads to decode compressed bodies on (issue 22; the threads guide, docs/threads.md,
   * "Arrow"): `1` (default) decodes on the caller's thread and starts no worker. More
   * decodes the compressed buffers of each record batch (LZ4_FRAME or ZSTD bodies) as
   * jobs on that many workers of the realm's pool, each into its exact size, batches
   * still in order and at most about `2 × threads` jobs in flight; a batch whose
   * buffers total less than 1 MiB decodes on the caller's thread, unless an earlier
   * batch of 1 MiB or more went to the workers (then down to 128 KiB). `'auto'`: the
   * runtime's cores (at most 16; 1 on workerd). The batches are the same whatever
   * `threads`. A runtime without workers (workerd) refuses a number above 1 with
   * `ENGINE_UNAVAILABLE` when the first compressed batch is read (`readArrow()`
   * rejects, `arrowDecode()`'s stream errors); a stream without body compression has
   * nothing to spread and reads on the caller's thread.
   */
  threads?: Threads
}

export const DEFAULT_MAX_MESSAGE_BYTES = 2 ** 31

/** Checked read options: the message size limit, whether to validate fully, `threads` (undefined for one). */
export interface ReadLimits {
  max: number
  full: boolean
  threads?: Threads
  /** Aborts queued decode jobs (`arrowDecode()`'s signal). */
  signal?: AbortSignal
}

/**
 * Checks read options (`shell`: the surface's own keys besides these, e.g. `signal` and
 * `streams` of `arrowDecode()`); unknown keys are `INVALID_OPTION`.
 */
export function checkReadOptions(options: ArrowReadOptions | undefined, shell: readonly string[] = []): ReadLimits {
  checkKeys('arrow', options, [...(['maxMessageBytes', 'validate', 'threads'] satisfies (keyof ArrowReadOptions)[]), ...shell])
  const full = checkOneOf('arrow', 'validate', options?.validate, ['default', 'full'], 'default') === 'full'
  const max = checkLimit('arrow', 'maxMessageBytes', options?.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES)
  const threads = options?.threads
  checkThreadsForm('arrow', threads)
  return threads === undefined || threads === 1 ? { max, full } : { max, full, threads }
}

/**
 * The state of reading one IPC stream or file: the schema, the dictionaries by id, and
 * one body decoder per codec (created once, `reset()` between buffers). Turns each
 * message into apache-arrow objects; knows nothing of where the bytes come from.
 */
export class ArrowSession {
  schema: Schema | null = null
  private schemaDesc: SchemaDesc | null = null
  private version = 4
  /** Dictionary-encoded fields by id (value level), with their apache-arrow value types. */
  private readonly dictFields = new Map<number, { desc: FieldDesc; type: DataType }>()
  readonly dictionaries = new Map<number, Vector>()
  private readonly decoders: (Decoder | null)[] = [null, null]
  private readonly maxBytes: number
  private readonly full: boolean
  private readonly limits: ReadLimits
  /** The threads implementation once `threads` was resolved (null: one thread after all). */
  private threads: ArrowThreads | null | undefined
  /** `threads` being resolved (the threads implementation loading). */
  private threadsReady: Promise<ArrowThreads | null> | null = null
  /** Decodes started by `startPredecode()`, as settled outcomes (never an unhandled rejection). */
  private readonly started = new Map<MessageDesc, Promise<{ buffers: Uint8Array[] | null } | { error: unknown }>>()
  /** The buffers of the message `predecode()` finished last (null buffers: decode serially). */
  private predecoded: { message: MessageDesc; buffers: Uint8Array[] | null } | null = null

  constructor(limits: ReadLimits) {
    this.maxBytes = limits.max
    this.full = limits.full
    this.limits = limits
    if (limits.threads === undefined) this.threads = null
  }

  /**
   * Whether `message`'s compressed buffers are to be decoded as jobs (`threads` above
   * one) before `handle()` takes it.
   */
  needsPredecode(message: MessageDesc): boolean {
    return this.threads !== null && (message.batch?.compression ?? -1) >= 0 && this.predecoded?.message !== message
  }

  /**
   * Starts decoding the compressed buffers of `message` as jobs on the worker pool (see
   * `ArrowReadOptions.threads`), unless started already; `predecode()` waits for them.
   * The reader starts the message after the one it is handling, so that the workers
   * go on while the caller builds a batch (its jobs share the `2 × threads` in flight).
   * Nothing starts while the body's decoder is not loaded yet (the message is then
   * decoded when `predecode()` reaches it) or on one thread.
   */
  startPredecode(message: MessageDesc, body: Uint8Array, bodyOffset: number, owned: boolean): void {
    const codec = message.batch?.compression ?? -1
    if (this.threads === null || codec < 0 || this.started.has(message) || !this.decoders[codec]) return
    const decode = async (): Promise<Uint8Array[] | null> => {
      // The first use loads the threads implementation and resolves `threads`.
      const threads = await (this.threadsReady ??= import('./threads.js').then(({ arrowThreads }) => (this.threads = arrowThreads(this.limits.threads, this.limits.signal))))
      const fields = this.fieldsOf(message)
      const decoder = this.decoders[codec]
      // A message handle() will refuse is left to it.
      if (!threads || !fields || !decoder) return null
      return threads.decode(message.batch!, body, bodyOffset, decoder, this.maxBytes, owned, sizeHints(fields, message.batch!, this.version, false))
    }
    this.started.set(
      message,
      decode().then(
        (buffers) => ({ buffers }),
        (error: unknown) => ({ error }),
      ),
    )
  }

  /** Decodes (or waits for the decode `startPredecode()` started of) `message`'s buffers, for the `handle()` call that follows. */
  async predecode(message: MessageDesc, body: Uint8Array, bodyOffset: number, owned: boolean): Promise<void> {
    this.startPredecode(message, body, bodyOffset, owned)
    const outcome = (await this.started.get(message)) ?? { buffers: null }
    this.started.delete(message)
    this.predecoded = { message, buffers: 'buffers' in outcome ? outcome.buffers : null }
    if ('error' in outcome) throw outcome.error
  }

  /** The fields a batch or dictionary message holds, or null when `handle()` will refuse it. */
  private fieldsOf(message: MessageDesc): FieldDesc[] | null {
    if (!this.schemaDesc) return null
    if (message.headerType === HeaderTag.RecordBatch) return this.schemaDesc.fields
    if (message.headerType !== HeaderTag.DictionaryBatch) return null
    const entry = this.dictFields.get(message.dictionaryId)
    return entry ? [entry.desc] : null
  }

  /** Whether `message` needs a body decoder that is not loaded yet. */
  needsDecoder(message: MessageDesc): number {
    const c = message.batch?.compression ?? -1
    return c >= 0 && this.decoders[c] === null ? c : -1
  }

  /** Loads the decoder of body compression `codec` (0 LZ4_FRAME, 1 ZSTD). */
  async loadDecoder(codec: number): Promise<void> {
    if (this.decoders[codec]) return
    const mod = codec === 0 ? await loadCodec('lz4', 'wasm', 'decode') : await loadCodec('zstd', 'wasm', 'decode')
    this.decoders[codec] ??= mod.createDecoder({})
  }

  setSchema(desc: SchemaDesc, version: number, at: number): void {
    if (desc.endianness !== 0) throw new CodecError('UNSUPPORTED', 'arrow', 'big-endian data is not supported', at)
    this.schemaDesc = desc
    this.version = version
    try {
      this.schema = toSchema(desc, version)
    } catch (e) {
      if (e instanceof CodecError) throw e
      // apache-arrow's Schema rejects e.g. one dictionary id used with two value types.
      throw new CodecError('INVALID_DATA', 'arrow', `apache-arrow rejects the schema: ${(e as Error).message}`, at, { cause: e })
    }
    const walk = (descs: FieldDesc[], types: DataType[]): void => {
      descs.forEach((d, i) => {
        let t = types[i]!
        if (d.dictionary) {
          const value = (t as unknown as { dictionary: DataType }).dictionary
          if (!this.dictFields.has(d.dictionary.id)) this.dictFields.set(d.dictionary.id, { desc: { ...d, dictionary: null }, type: value })
          t = value
        }
        walk(d.children, (t.children ?? []).map((c) => c.type))
      })
    }
    walk(desc.fields, this.schema.fields.map((f) => f.type))
  }

  /**
   * Handles one message. Returns a RecordBatch for record batch messages, else null.
   * `body` may be a view of caller memory; `owned` says whether the returned data may
   * keep views into it (uncompressed buffers, and buffers stored raw in a compressed
   * body, are copied out when not).
   */
  handle(message: MessageDesc, body: Uint8Array, bodyOffset: number, owned: boolean): RecordBatch | null {
    switch (message.headerType) {
      case HeaderTag.Schema:
        if (this.schemaDesc) throw new CodecError('INVALID_DATA', 'arrow', 'a second schema message in one stream', bodyOffset)
        this.setSchema(message.schema!, message.version, bodyOffset)
        return null
      case HeaderTag.DictionaryBatch: {
        if (!this.schemaDesc) throw new CodecError('INVALID_DATA', 'arrow', 'a dictionary batch before the schema', bodyOffset)
        const entry = this.dictFields.get(message.dictionaryId)
        if (!entry) throw new CodecError('INVALID_DATA', 'arrow', `dictionary batch for id ${message.dictionaryId}, which no field of the schema uses`, bodyOffset)
        const buffers = this.buffers(message, body, bodyOffset, owned, [entry.desc])
        const loader = new BatchLoader(message.batch!, buffers, this.version, this.dictionaries, bodyOffset, this.full)
        const data = loader.load(entry.desc, entry.type, true)
        const previous = this.dictionaries.get(message.dictionaryId)
        // Deltas append to the dictionary; a non-delta batch replaces it (Columnar.rst,
        // "Dictionary Messages"). Like apache-arrow's reader, the vector is memoized so
        // repeated lookups of one index decode it once.
        const vector = previous && message.isDelta ? previous.concat(new Vector([data])) : new Vector([data])
        this.dictionaries.set(message.dictionaryId, vector.memoize())
        return null
      }
      case HeaderTag.RecordBatch: {
        if (!this.schemaDesc || !this.schema) throw new CodecError('INVALID_DATA', 'arrow', 'a record batch before the schema', bodyOffset)
        const batch = message.batch!
        const buffers = this.buffers(message, body, bodyOffset, owned, this.schemaDesc.fields)
        const loader = new BatchLoader(batch, buffers, this.version, this.dictionaries, bodyOffset, this.full)
        const fields = this.schema.fields
        const children = this.schemaDesc.fields.map((f, i) => {
          const d = loader.load(f, fields[i]!.type)
          // Arrow C++ (RecordBatch::Validate) requires every column to match the batch.
          if (d.length !== batch.length) {
            throw new CodecError('INVALID_DATA', 'arrow', `column ${JSON.stringify(f.name)} has ${d.length} values, the batch ${batch.length}`, bodyOffset)
          }
          return d
        })
        const data = makeData({ type: new Struct(fields), length: batch.length, nullCount: 0, children })
        return new RecordBatch(this.schema, data, message.metadata ?? undefined)
      }
      default:
        throw new CodecError('UNSUPPORTED', 'arrow', `message type ${message.headerType} is not supported`, bodyOffset)
    }
  }

  /** The body's buffers; `fields` (those the message holds) give sizes the prefixes may lack. */
  private buffers(message: MessageDesc, body: Uint8Array, bodyOffset: number, owned: boolean, fields: FieldDesc[]): Uint8Array[] {
    const batch = message.batch!
    const predecoded = this.predecoded
    if (predecoded?.message === message) {
      this.predecoded = null
      if (predecoded.buffers) return predecoded.buffers
    }
    const compressed = batch.compression >= 0
    // Uncompressed buffers become views of the body: of the caller's memory when it
    // is ours to alias, else of one copy of the body made here. In a compressed body,
    // buffers stored raw are views only when the body may be aliased (else copied
    // with the decoded ones).
    const source = compressed || owned ? body : body.slice()
    if (!compressed) return decodeBodyBuffers(batch, source, bodyOffset, null, this.maxBytes, owned)
    return decodeBodyBuffers(batch, source, bodyOffset, this.decoders[batch.compression]!, this.maxBytes, owned, sizeHints(fields, batch, this.version, false))
  }

  dispose(): void {
    this.started.clear()
    for (const d of this.decoders) d?.dispose()
    this.decoders[0] = this.decoders[1] = null
  }
}
