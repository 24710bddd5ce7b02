/**
 * `inspect` for Arrow IPC (stream and file) and Parquet: schemas, batches / row groups,
 * codecs and sizes, read from the metadata without decoding column data. Arrow uses
 * the library's own IPC framing and flatbuffer readers (lib/arrow/); Parquet the
 * footer reader (`sluice/parquet`), over any range source, so a URL costs a HEAD and
 * range requests for the footer only.
 */
import { CodecError } from '../errors.js'
import { IpcFramer } from '../arrow/framing.js'
import { HeaderTag, readFooter, TypeTag, type FieldDesc, type TypeDesc } from '../arrow/metadata.js'
import { Status } from '../status.js'
import { parquetMetadata } from '../parquet/source.js'
import { statisticsValue } from '../parquet/values.js'
import type { FileMetaData, RangeSource, SchemaElement } from '../parquet/types.js'

// ---------------------------------------------------------------------------------------
// Arrow IPC

const TYPE_NAMES = Object.fromEntries(Object.entries(TypeTag).map(([name, tag]) => [tag, name])) as Record<number, string>
const TIME_UNITS = ['s', 'ms', 'us', 'ns']
const CODECS = ['LZ4_FRAME', 'ZSTD']

/** A type as text: `int32`, `uint8`, `float64`, `utf8`, `timestamp[ms, UTC]`, `list<int32>`. */
function typeText(t: TypeDesc, children: FieldDesc[]): string {
  switch (t.tag) {
    case TypeTag.Int: return `${t.signed ? '' : 'u'}int${t.bitWidth}`
    case TypeTag.FloatingPoint: return `float${[16, 32, 64][t.precision] ?? '?'}`
    case TypeTag.Decimal: return `decimal${t.bitWidth}(${t.precision}, ${t.scale})`
    case TypeTag.Date: return t.unit === 0 ? 'date32[day]' : 'date64[ms]'
    case TypeTag.Time: return `time${t.bitWidth}[${TIME_UNITS[t.unit]}]`
    case TypeTag.Timestamp: return `timestamp[${TIME_UNITS[t.unit]}${t.timezone ? `, ${t.timezone}` : ''}]`
    case TypeTag.Duration: return `duration[${TIME_UNITS[t.unit]}]`
    case TypeTag.FixedSizeBinary: return `fixed_size_binary[${t.width}]`
    case TypeTag.FixedSizeList: return `fixed_size_list<${children.map(fieldText).join(', ')}>[${t.width}]`
    case TypeTag.List: case TypeTag.LargeList: case TypeTag.ListView: case TypeTag.LargeListView: case TypeTag.Map: case TypeTag.Struct: case TypeTag.Union: case TypeTag.RunEndEncoded:
      return `${TYPE_NAMES[t.tag]!.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase()}<${children.map(fieldText).join(', ')}>`
    default: return (TYPE_NAMES[t.tag] ?? `type ${t.tag}`).replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase()
  }
}

function fieldText(f: FieldDesc): string {
  return `${f.name}: ${typeText(f.type, f.children)}`
}

/** A field of an Arrow schema. */
export interface ArrowFieldInfo {
  /** Its name. */
  name: string
  /** Its type as text: `int32`, `utf8`, `timestamp[ms, UTC]`, `list<item: int32>`. */
  type: string
  /** Whether it may hold nulls. */
  nullable: boolean
  /** Dictionary-encoded: the dictionary's id and index type. */
  dictionary: {
    /** The dictionary's id, which dictionary batches name. */
    id: number
    /** The type of the indices into it (`int32`). */
    indexType: string
  } | null
}

/** A record batch or dictionary batch of an Arrow IPC file. */
export interface ArrowBatchInfo {
  /** `record` or `dictionary` (with its id and delta flag). */
  type: 'record' | 'dictionary'
  /** Its length in rows. */
  rows: number
  /** Its body's length in the file. */
  bodyLength: number
  /** Body compression (Message.fbs BodyCompression): LZ4_FRAME, ZSTD, or null. */
  compression: string | null
  /** The buffers' uncompressed size, from each compressed buffer's 8-byte length prefix. */
  uncompressedBodyLength: number
  /** Dictionary batches: the dictionary's id. */
  dictionaryId?: number
  /** Dictionary batches: whether it adds to the dictionary rather than replacing it. */
  isDelta?: boolean
}

/** An Arrow IPC stream or file: schema, batches and body compression, from the metadata. */
export interface ArrowInfo {
  /** The kind of file: the IPC stream format or the file format (`ARROW1`). */
  kind: 'arrow-stream' | 'arrow-file'
  /** The file's size in bytes. */
  size: number
  /** The metadata version of its messages (`V5`). */
  metadataVersion: string
  /** The schema's fields. */
  schema: ArrowFieldInfo[]
  /** The schema's key/value metadata; null without any. */
  schemaMetadata: Record<string, string> | null
  /** Every batch, in order. */
  batches: ArrowBatchInfo[]
  /** How many record batches. */
  recordBatches: number
  /** How many dictionary batches. */
  dictionaryBatches: number
  /** Rows over all record batches. */
  rows: number
  /** Codecs used by the batches' bodies. */
  compression: string[]
  /** The bodies' bytes in the file. */
  bodyBytes: number
  /** The bodies' bytes once their buffers are decompressed. */
  uncompressedBodyBytes: number
  /** The file footer's block counts (files only). */
  footer?: {
    /** The record batch blocks the footer lists. */
    recordBatches: number
    /** The dictionary blocks it lists. */
    dictionaries: number
  }
}

/** Sum of the uncompressed sizes of a body's buffers (prefix -1: stored as is). */
function uncompressedLength(body: Uint8Array, offsets: number[], lengths: number[], compressed: boolean): number {
  let total = 0
  for (let i = 0; i < offsets.length; i++) {
    const at = offsets[i]!
    const length = lengths[i]!
    if (!compressed || length < 8) {
      total += compressed ? 0 : length
      continue
    }
    const view = new DataView(body.buffer, body.byteOffset + at, 8)
    const declared = Number(view.getBigInt64(0, true))
    total += declared === -1 ? length - 8 : declared
  }
  return total
}

/** The Arrow report on the whole IPC stream or file `bytes`; corrupt framing throws the framer's CodecError. */
export function inspectArrow(bytes: Uint8Array): ArrowInfo {
  const framer = new IpcFramer(2 ** 31)
  let pos = 0
  const info: ArrowInfo = {
    kind: 'arrow-stream',
    size: bytes.length,
    metadataVersion: '',
    schema: [],
    schemaMetadata: null,
    batches: [],
    recordBatches: 0,
    dictionaryBatches: 0,
    rows: 0,
    compression: [],
    bodyBytes: 0,
    uncompressedBodyBytes: 0,
  }
  for (;;) {
    const status = framer.transform(bytes.subarray(pos), true)
    pos += framer.consumed
    if (status === Status.InvalidData) {
      const f = framer.failure!
      throw new CodecError(f.code, 'arrow', f.message, f.offset)
    }
    if (status === Status.NeedMoreData) throw new CodecError('TRUNCATED', 'arrow', 'the IPC stream ends inside a message', pos)
    if (framer.isFile) info.kind = 'arrow-file'
    if (framer.ended || framer.message === null) break
    const m = framer.message
    info.metadataVersion = `V${m.version + 1}`
    if (m.headerType === HeaderTag.Schema && m.schema) {
      info.schema = m.schema.fields.map((f) => ({
        name: f.name,
        type: typeText(f.type, f.children),
        nullable: f.nullable,
        dictionary: f.dictionary ? { id: f.dictionary.id, indexType: `${f.dictionary.indexSigned ? '' : 'u'}int${f.dictionary.indexBitWidth}` } : null,
      }))
      info.schemaMetadata = m.schema.metadata ? Object.fromEntries(m.schema.metadata) : null
    } else if (m.batch) {
      const b = m.batch
      const compression = b.compression < 0 ? null : (CODECS[b.compression] ?? `codec ${b.compression}`)
      const body = framer.body ?? new Uint8Array(0)
      const batch: ArrowBatchInfo = {
        type: m.headerType === HeaderTag.DictionaryBatch ? 'dictionary' : 'record',
        rows: b.length,
        bodyLength: m.bodyLength,
        compression,
        uncompressedBodyLength: uncompressedLength(body, b.bufferOffsets, b.bufferLengths, compression !== null),
      }
      if (batch.type === 'dictionary') {
        batch.dictionaryId = m.dictionaryId
        batch.isDelta = m.isDelta
        info.dictionaryBatches++
      } else {
        info.recordBatches++
        info.rows += b.length
      }
      if (compression && !info.compression.includes(compression)) info.compression.push(compression)
      info.bodyBytes += m.bodyLength
      info.uncompressedBodyBytes += batch.uncompressedBodyLength
      info.batches.push(batch)
    }
  }
  if (info.kind === 'arrow-file' && bytes.length >= 16) {
    // File trailer: <footer> <int32 footer length> "ARROW1" (Columnar.html, IPC File Format).
    const n = bytes.length
    const length = new DataView(bytes.buffer, bytes.byteOffset + n - 10, 4).getInt32(0, true)
    if (length > 0 && length <= n - 10) {
      const footer = readFooter(bytes.subarray(n - 10 - length, n - 10), n - 10 - length)
      info.footer = { recordBatches: footer.recordBatches.length, dictionaries: footer.dictionaries.length }
    }
  }
  return info
}

// ---------------------------------------------------------------------------------------
// Parquet

/** A leaf column of a Parquet file, over all its row groups. */
export interface ParquetColumnInfo {
  /** Its dotted path in the schema. */
  path: string
  /** Its physical type (`INT64`, `BYTE_ARRAY`). */
  type: string
  /** Codecs of the column's chunks, and its sizes over all row groups. */
  codecs: string[]
  /** The encodings its chunks use. */
  encodings: string[]
  /** Its chunks' compressed bytes. */
  compressedSize: number
  /** Its chunks' uncompressed bytes. */
  uncompressedSize: number
  /** The null count over the row groups, null when a row group does not give it. */
  nullCount: number | null
  /** The least value the statistics give (bigints and bytes as text); null without statistics. */
  min: unknown
  /** The greatest value the statistics give; null without statistics. */
  max: unknown
}

/** A Parquet file: what its footer (FileMetaData) says. */
export interface ParquetInfo {
  /** The kind of file. */
  kind: 'parquet'
  /** The file's size in bytes. */
  size: number
  /** The format version the footer gives. */
  version: number
  /** The writer (`parquet-cpp-arrow version 14.0.1`); null when not given. */
  createdBy: string | null
  /** Rows in the file. */
  rows: number
  /** The footer's length in bytes. */
  footerLength: number
  /** The schema as indented lines (`optional INT64 id`). */
  schema: string[]
  /** Each row group's rows, sizes and column count. */
  rowGroups: Array<{
    /** Rows in the row group. */
    rows: number
    /** total_byte_size: its uncompressed bytes. */
    totalByteSize: number
    /** Its column chunks' compressed bytes. */
    compressedSize: number
    /** How many column chunks it has. */
    columns: number
  }>
  /** Each leaf column over all row groups. */
  columns: ParquetColumnInfo[]
  /** The codecs the column chunks use. */
  codecs: string[]
  /** The keys of the footer's key/value metadata. */
  keyValueMetadata: string[]
  /** How the footer was read: the range reads made. */
  reads: number
}

/** The schema as indented lines, and each leaf's SchemaElement by its dotted path. */
function walkSchema(schema: SchemaElement[]): { lines: string[]; leaves: Map<string, SchemaElement> } {
  const lines: string[] = []
  const leaves = new Map<string, SchemaElement>()
  let i = 1
  const visit = (depth: number, prefix: string[]): void => {
    const e = schema[i++]!
    const path = [...prefix, e.name]
    const logical = e.logical_type ? ` (${e.logical_type.type})` : e.converted_type !== undefined ? ` (${String(e.converted_type)})` : ''
    const rep = typeof e.repetition_type === 'string' ? e.repetition_type.toLowerCase() : 'required'
    if (e.num_children !== undefined && e.num_children > 0) {
      lines.push(`${'  '.repeat(depth)}${rep} group ${e.name}${logical}`)
      for (let c = 0; c < e.num_children && i < schema.length; c++) visit(depth + 1, path)
    } else {
      lines.push(`${'  '.repeat(depth)}${rep} ${e.type ?? '?'}${e.type_length ? `(${e.type_length})` : ''} ${e.name}${logical}`)
      leaves.set(path.join('.'), e)
    }
  }
  const root = schema[0]
  for (let c = 0; root && c < (root.num_children ?? 0) && i < schema.length; c++) visit(0, [])
  return { lines, leaves }
}

const num = (v: number | bigint | undefined): number => (v === undefined ? 0 : Number(v))

/** JSON-able statistics values: bigints and bytes become text. */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Uint8Array) return `0x${Array.from(v.subarray(0, 32), (b) => b.toString(16).padStart(2, '0')).join('')}${v.length > 32 ? '…' : ''}`
  return v
}

function less(a: unknown, b: unknown): boolean | null {
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return a < b
  if (typeof a === 'string' && typeof b === 'string') return a < b
  return null
}

/** The Parquet report on a decoded footer, of a file of `size` bytes read in `reads` range reads. */
export function summarizeParquet(meta: FileMetaData, size: number, reads: number): ParquetInfo {
  const { lines, leaves } = walkSchema(meta.schema)
  const columns = new Map<string, ParquetColumnInfo & { nullsKnown: boolean }>()
  const codecs = new Set<string>()
  for (const rg of meta.row_groups) {
    for (const chunk of rg.columns) {
      const md = chunk.meta_data
      if (!md) continue
      const path = md.path_in_schema.join('.')
      const codec = String(md.codec)
      codecs.add(codec)
      let c = columns.get(path)
      if (!c) {
        c = { path, type: String(md.type), codecs: [], encodings: [], compressedSize: 0, uncompressedSize: 0, nullCount: 0, min: undefined, max: undefined, nullsKnown: true }
        columns.set(path, c)
      }
      if (!c.codecs.includes(codec)) c.codecs.push(codec)
      for (const e of md.encodings) if (!c.encodings.includes(String(e))) c.encodings.push(String(e))
      c.compressedSize += num(md.total_compressed_size)
      c.uncompressedSize += num(md.total_uncompressed_size)
      const s = md.statistics
      if (s?.null_count === undefined) c.nullsKnown = false
      else c.nullCount = (c.nullCount ?? 0) + num(s.null_count)
      const leaf = leaves.get(path)
      if (s && leaf) {
        const min = statisticsValue(s.min_value ?? s.min, leaf)
        const max = statisticsValue(s.max_value ?? s.max, leaf)
        if (min !== undefined && (c.min === undefined || less(min, c.min) === true)) c.min = min
        if (max !== undefined && (c.max === undefined || less(c.max, max) === true)) c.max = max
      }
    }
  }
  return {
    kind: 'parquet',
    size,
    version: meta.version,
    createdBy: meta.created_by ?? null,
    rows: num(meta.num_rows),
    footerLength: meta.metadata_length,
    schema: lines,
    rowGroups: meta.row_groups.map((rg) => ({ rows: num(rg.num_rows), totalByteSize: num(rg.total_byte_size), compressedSize: rg.columns.reduce((s, c) => s + num(c.meta_data?.total_compressed_size), 0), columns: rg.columns.length })),
    columns: [...columns.values()].map(({ nullsKnown, ...c }) => ({ ...c, nullCount: nullsKnown ? c.nullCount : null, min: plain(c.min) ?? null, max: plain(c.max) ?? null })),
    codecs: [...codecs],
    keyValueMetadata: (meta.key_value_metadata ?? []).map((kv) => kv.key),
    reads,
  }
}

/** Counts the reads a range source serves (the footer costs one or two). */
export function countingSource(source: RangeSource): RangeSource & { reads: number } {
  const counted = {
    size: source.size,
    reads: 0,
    read(offset: number, length: number) {
      counted.reads++
      return source.read(offset, length)
    },
  }
  return counted
}

/** The Parquet report on `source`, whose footer is read by range reads. */
export async function inspectParquet(source: RangeSource): Promise<ParquetInfo> {
  const counted = countingSource(source)
  const meta = await parquetMetadata(counted)
  return summarizeParquet(meta, source.size, counted.reads)
}
