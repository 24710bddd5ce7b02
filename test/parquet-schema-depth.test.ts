// A schema's group nesting is capped: every leaf path holds one entry per level, so a
// hostile footer could otherwise ask for quadratic memory. The footers here are written
// with a small Thrift compact-protocol writer.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError } from '../lib/errors.js'
import { CompactType, decodeFileMetaData } from '../lib/parquet/index.js'

const out: number[] = []
const varint = (v: number) => {
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80)
    v = Math.floor(v / 128)
  }
  out.push(v)
}
const zigzag = (v: number) => varint(v >= 0 ? v * 2 : -v * 2 - 1)
/** Field header with a delta from the previous field id (compact protocol). */
const field = (delta: number, type: number) => out.push((delta << 4) | type)
const { I32, I64, BINARY, LIST, STRUCT } = CompactType
const name = (delta: number, s: string) => {
  field(delta, BINARY)
  const b = new TextEncoder().encode(s)
  varint(b.length)
  out.push(...b)
}
const listHeader = (size: number, type: number) => {
  if (size < 15) out.push((size << 4) | type)
  else {
    out.push(0xf0 | type)
    varint(size)
  }
}

/** FileMetaData whose schema is `depth` nested groups (the root included) over one INT32 leaf. */
function footer(depth: number): Uint8Array {
  out.length = 0
  field(1, I32) // version
  zigzag(1)
  field(1, LIST) // schema
  listHeader(depth + 1, STRUCT)
  for (let g = 0; g < depth; g++) {
    name(4, g === 0 ? 'schema' : `g${g}`)
    field(1, I32) // num_children
    zigzag(1)
    out.push(0)
  }
  field(1, I32) // type INT32
  zigzag(1)
  name(3, 'leaf')
  out.push(0)
  field(1, I64) // num_rows
  zigzag(0)
  field(1, LIST) // row_groups
  listHeader(0, STRUCT)
  out.push(0)
  return new Uint8Array(out)
}

test('a schema nested 200 groups deep decodes, with the whole path', () => {
  const meta = decodeFileMetaData(footer(200))
  assert.is(meta.schema.length, 201)
  assert.is(meta.schema[200]!.name, 'leaf')
})

test('a schema nested deeper than 256 groups is LIMIT_EXCEEDED, also with the columns option', () => {
  for (const options of [undefined, { columns: ['g1'] }]) {
    try {
      decodeFileMetaData(footer(300), options)
      assert.unreachable('decoded')
    } catch (e) {
      assert.instance(e, CodecError)
      assert.is((e as CodecError).code, 'LIMIT_EXCEEDED', (e as Error).message)
      assert.match((e as Error).message, /nests groups deeper than 256 levels/)
    }
  }
})

test.run()
