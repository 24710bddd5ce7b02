/**
 * Decoding statistics values. `Statistics` keeps min/max as the PLAIN-encoded bytes
 * of the file (parquet.thrift, `Statistics`: "Values are encoded using PLAIN encoding,
 * except that variable-length byte arrays do not include a length prefix"); this turns
 * them into the physical value for a column.
 */
import type { SchemaElement } from './types.js'

const utf8 = /* @__PURE__ */ new TextDecoder()

/**
 * The physical value of a statistics min/max for a leaf `column`:
 * BOOLEAN -> boolean; INT32 -> number (unsigned for UINT_* / unsigned INTEGER);
 * INT64 -> number when safe, else bigint (unsigned likewise); FLOAT/DOUBLE -> number;
 * BYTE_ARRAY annotated as a string (STRING, ENUM, JSON; UTF8, ENUM, JSON) -> string;
 * anything else (other byte arrays, FIXED_LEN_BYTE_ARRAY, INT96, or a length that does
 * not fit the type) -> the bytes unchanged. Logical meaning (dates, decimals,
 * timestamps) is left to the caller. `undefined` stays `undefined`.
 */
export function statisticsValue(
  value: Uint8Array | undefined,
  column: Pick<SchemaElement, 'type' | 'converted_type' | 'logical_type'>,
): boolean | number | bigint | string | Uint8Array | undefined {
  if (value === undefined) return undefined
  const logical = column.logical_type
  const converted = column.converted_type
  const unsigned =
    (typeof converted === 'string' && converted.startsWith('UINT_')) ||
    (logical !== undefined && logical.type === 'INTEGER' && !logical.isSigned)
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength)
  switch (column.type) {
    case 'BOOLEAN':
      return value.length === 1 ? value[0] === 1 : value
    case 'INT32':
      if (value.length !== 4) return value
      return unsigned ? view.getUint32(0, true) : view.getInt32(0, true)
    case 'INT64': {
      if (value.length !== 8) return value
      const big = unsigned ? view.getBigUint64(0, true) : view.getBigInt64(0, true)
      return big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big
    }
    case 'FLOAT':
      return value.length === 4 ? view.getFloat32(0, true) : value
    case 'DOUBLE':
      return value.length === 8 ? view.getFloat64(0, true) : value
    case 'BYTE_ARRAY': {
      const text =
        converted === 'UTF8' ||
        converted === 'ENUM' ||
        converted === 'JSON' ||
        (logical !== undefined && (logical.type === 'STRING' || logical.type === 'ENUM' || logical.type === 'JSON'))
      return text ? utf8.decode(value) : value
    }
    default:
      return value
  }
}
