// Type-checked as a CommonJS consumer (moduleResolution node16): the `require`
// condition's declarations (dist/types/*.d.cts, which take the `import` condition's
// through resolution-mode: import, so both kinds of consumer see the same types).
import { CodecError, CodecStream, CompressionStream, createDecoder, decode, encode, Status, type ErrorCode, type Format } from 'sluice'
import type * as Esm from 'sluice' with { 'resolution-mode': 'import' }
import { arrowDecode } from 'sluice/arrow'
import { decodeResponse } from 'sluice/fetch'
import { parquetCompressors } from 'sluice/hyparquet'
import { CodecDuplex, nodeDecode } from 'sluice/node'
import { parquetMetadata } from 'sluice/parquet'

const format: Format = 'zstd'
const packed: Promise<Uint8Array> = encode(format, new Uint8Array(8))
const plain: Promise<Uint8Array> = packed.then((p) => decode(format, p))
const code: ErrorCode = new CodecError('INVALID_DATA', 'zstd', 'bad frame').code
const done: number = Status.Done
// @ts-expect-error: not a format the package knows
void encode('rar', new Uint8Array(8))
// Classes are values and types; the generic one keeps its type parameters.
class Rejected extends CodecError {}
const esm: Esm.CodecError = new Rejected('INVALID_DATA', 'zstd', 'bad frame')
const cjs: CodecError = esm
const stream: CompressionStream = new CompressionStream('zstd')
const status: Status = Status.NeedMoreData
const shell: CodecStream<Uint8Array, Uint8Array> | null = null
const duplex: CodecDuplex | null = null
export const uses = [plain, code, done, createDecoder, arrowDecode, decodeResponse, parquetCompressors.ZSTD, nodeDecode, parquetMetadata, cjs, stream, status, shell, duplex]
