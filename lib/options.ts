import { CodecError } from './errors.js'

/**
 * The generic option checks every module uses (codecs through `formats.ts`, the Arrow and
 * Parquet readers directly): a leaf of its own, so that an entry that needs no format
 * facts (`sluice/parquet`) does not load them. Each throws `CodecError('INVALID_OPTION')`
 * naming the option, the range and the value; `undefined` gives the default.
 */

/** An integer in `[min, max]`. */
export function checkInteger(format: string, name: string, value: unknown, min: number, max: number, fallback: number): number
export function checkInteger(format: string, name: string, value: unknown, min: number, max: number, fallback?: number): number | undefined
export function checkInteger(format: string, name: string, value: unknown, min: number, max: number, fallback?: number): number | undefined {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new CodecError('INVALID_OPTION', format, `${name} must be an integer from ${rangeText(min)} to ${rangeText(max)}, got ${String(value)}`)
  }
  return value
}

function rangeText(n: number): string {
  return n >= 1024 && Number.isInteger(Math.log2(n)) ? `2^${Math.log2(n)}` : String(n)
}

/** A boolean. */
export function checkBoolean(format: string, name: string, value: unknown, fallback: boolean): boolean
export function checkBoolean(format: string, name: string, value: unknown, fallback?: boolean): boolean | undefined
export function checkBoolean(format: string, name: string, value: unknown, fallback?: boolean): boolean | undefined {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean') throw new CodecError('INVALID_OPTION', format, `${name} must be a boolean, got ${String(value)}`)
  return value
}

/** One of `choices` (strings). */
export function checkOneOf<T extends string>(format: string, name: string, value: unknown, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !choices.includes(value as T)) {
    throw new CodecError('INVALID_OPTION', format, `${name} must be ${choices.map((c) => `'${c}'`).join(' or ')}, got ${String(value)}`)
  }
  return value as T
}

/**
 * A byte limit: a non-negative integer or `Infinity`. A limit of 0 is allowed everywhere
 * (it admits only empty output), so that every limit option accepts the same values.
 */
export function checkLimit(format: string, name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !(value >= 0) || (Number.isFinite(value) && !Number.isInteger(value))) {
    throw new CodecError('INVALID_OPTION', format, `${name} must be a non-negative integer or Infinity, got ${String(value)}`)
  }
  return value
}
