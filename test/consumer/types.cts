// Type-checked as a CommonJS consumer (moduleResolution node16): the `require`
// condition's declarations.
import { CodecError, createDecoder, decode, encode, Status, type ErrorCode, type Format } from 'sluice'
import { arrowDecode } from 'sluice/arrow'
import { decodeResponse } from 'sluice/fetch'
import { parquetCompressors } from 'sluice/hyparquet'
import { nodeDecode } from 'sluice/node'
import { parquetMetadata } from 'sluice/parquet'

const format: Format = 'zstd'
const packed: Promise<Uint8Array> = encode(format, new Uint8Array(8))
const plain: Promise<Uint8Array> = packed.then((p) => decode(format, p))
const code: ErrorCode = new CodecError('INVALID_DATA', 'zstd', 'bad frame').code
const done: number = Status.Done
// @ts-expect-error: not a format the package knows
void encode('rar', new Uint8Array(8))
export const uses = [plain, code, done, createDecoder, arrowDecode, decodeResponse, parquetCompressors.ZSTD, nodeDecode, parquetMetadata]
