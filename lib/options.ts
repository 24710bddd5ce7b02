/**
 * The generic option checks every module uses (codecs through `codec-options.ts`, the
 * Arrow and Parquet readers directly) and the option schema's vocabulary (`OptionSpec`):
 * a leaf of its own, so that an entry that needs no format facts (`sluice/parquet`) does
 * not load them. Each check throws `CodecError('INVALID_OPTION')` naming the option, the range
 * and the value with its type (`got "9" (a string)`); `undefined` gives the default.
 */
import type { BinaryInput } from './bytes.js'
import { CodecError } from './errors.js'
import type { Engine } from './formats.js'
import type { ProgressCallback } from './progress.js'

/**
 * A value as messages show it: strings quoted with their type named, numbers and
 * booleans as written, other types by name (`"9" (a string)`, `99`, `an object`).
 */
export function describe(value: unknown): string {
  const type = typeof value
  if (type === 'string') return `${JSON.stringify((value as string).length > 40 ? `${(value as string).slice(0, 40)}...` : value)} (a string)`
  if (value === null || type === 'number' || type === 'boolean' || type === 'undefined') return String(value)
  if (type === 'bigint') return `${String(value)}n (a bigint)`
  return Array.isArray(value) ? 'an Array' : type === 'object' ? 'an object' : `a ${type}`
}

/** An integer in `[min, max]`. */
export function checkInteger(format: string, name: string, value: unknown, min: number, max: number, fallback: number): number
export function checkInteger(format: string, name: string, value: unknown, min: number, max: number, fallback?: number): number | undefined
export function checkInteger(format: string, name: string, value: unknown, min: number, max: number, fallback?: number): number | undefined {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new CodecError('INVALID_OPTION', format, `${name} must be an integer from ${rangeText(min)} to ${rangeText(max)}, got ${describe(value)}`)
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
  if (typeof value !== 'boolean') throw new CodecError('INVALID_OPTION', format, `${name} must be a boolean, got ${describe(value)}`)
  return value
}

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 2 ? items.join(' or ') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`
}

/**
 * `INVALID_OPTION` for an own key of `options` (an object; not undefined-valued) that is
 * not in `known`, naming the nearest known one (`levle` → `level`). Non-objects throw too.
 */
export function checkKeys(format: string, options: unknown, known: readonly string[], what = 'option'): void {
  if (options === undefined) return
  if (typeof options !== 'object' || options === null) throw new CodecError('INVALID_OPTION', format, `options must be an object, got ${describe(options)}`)
  for (const key of Object.keys(options)) {
    if ((options as Record<string, unknown>)[key] === undefined || known.includes(key)) continue
    const near = nearestKey(key, known)
    throw new CodecError('INVALID_OPTION', format, `unknown ${what} '${key}'${near ? ` (did you mean '${near}'?)` : ''}; expected ${known.join(', ')}`)
  }
}

/** One of `choices` (strings or numbers). */
export function checkOneOf<T extends string | number>(format: string, name: string, value: unknown, choices: readonly T[], fallback: T): T
export function checkOneOf<T extends string | number>(format: string, name: string, value: unknown, choices: readonly T[], fallback?: T): T | undefined
export function checkOneOf<T extends string | number>(format: string, name: string, value: unknown, choices: readonly T[], fallback?: T): T | undefined {
  if (value === undefined) return fallback
  if (!choices.includes(value as T)) {
    throw new CodecError('INVALID_OPTION', format, `${name} must be ${orList(choices.map((c) => (typeof c === 'string' ? `'${c}'` : String(c))))}, got ${describe(value)}`)
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
    throw new CodecError('INVALID_OPTION', format, `${name} must be a non-negative integer or Infinity, got ${describe(value)}`)
  }
  return value
}

// ---------------------------------------------------------------------------------------
// The option schema: what one option of a format takes, as data, so that the run-time
// check (`checkSpec`, `checkOptions` in codec-options.ts) and the TypeScript type
// (`OptionsOf`) follow the same entry.

interface SpecBase {
  /** Engines that honour the option; others refuse it (never ignore it). Default: all. */
  readonly engines?: readonly Engine[]
  /** Set when the option must be given: what it is, for the message. */
  readonly required?: string
}

/** One option's schema entry. */
export type OptionSpec = SpecBase &
  (
    | { readonly type: 'integer'; readonly min: number; readonly max: number; /** A lower maximum on some engines. */ readonly engineMax?: Readonly<Partial<Record<Engine, number>>> }
    | { readonly type: 'boolean'; /** A value the option may not take, and why. */ readonly refuse?: { readonly value: boolean; readonly why: string } }
    | { readonly type: 'choice'; readonly values: readonly (string | number)[] }
    /** `true`/`false`, or an object of boolean sub-options (`seekable: { checksums: true }`). */
    | { readonly type: 'flags'; readonly keys: readonly string[] }
    /** A byte limit (`checkLimit`). */
    | { readonly type: 'limit' }
    /** The common options with checks of their own (codec-options.ts): engine, level, dictionary. */
    | { readonly type: 'engine' | 'level' | 'dictionary' }
    /** A progress callback (`onProgress`, lib/progress.ts). */
    | { readonly type: 'progress' }
  )

/** Options by name. */
export type OptionSchema = Readonly<Record<string, OptionSpec>>

/** Checks `value` (not undefined) against `spec`; returns it. */
export function checkSpec(format: string, name: string, spec: OptionSpec, value: unknown, engine: Engine): unknown {
  switch (spec.type) {
    case 'integer': {
      const max = spec.engineMax?.[engine] ?? spec.max
      if (max !== spec.max && typeof value === 'number' && Number.isInteger(value) && value > max && value <= spec.max) {
        throw new CodecError('INVALID_OPTION', format, `${name} must be an integer from ${rangeText(spec.min)} to ${rangeText(max)} on engine '${engine}', got ${describe(value)}`)
      }
      return checkInteger(format, name, value, spec.min, max)
    }
    case 'boolean': {
      const b = checkBoolean(format, name, value)
      if (spec.refuse !== undefined && b === spec.refuse.value) throw new CodecError('INVALID_OPTION', format, `${name}: ${spec.refuse.why}`)
      return b
    }
    case 'choice':
      return checkOneOf(format, name, value, spec.values)
    case 'flags': {
      if (typeof value === 'boolean') return value
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new CodecError('INVALID_OPTION', format, `${name} must be a boolean or an object of ${orList(spec.keys)} (booleans), got ${describe(value)}`)
      }
      const flags = value as Record<string, unknown>
      for (const key of Object.keys(flags)) {
        if (!spec.keys.includes(key)) {
          const near = nearestKey(key, spec.keys)
          throw new CodecError('INVALID_OPTION', format, `${name}: unknown option '${key}'${near ? ` (did you mean '${near}'?)` : ''}; it takes ${orList(spec.keys)}`)
        }
        checkBoolean(format, `${name}.${key}`, flags[key])
      }
      return value
    }
    case 'limit':
      return checkLimit(format, name, value, Infinity)
    case 'progress':
      if (typeof value !== 'function') throw new CodecError('INVALID_OPTION', format, `${name} must be a function, got ${describe(value)}`)
      return value
    default:
      // engine, level, dictionary: checked by their own rules (codec-options.ts), never here.
      return value
  }
}

/** The TypeScript value type of a schema entry. */
type ValueOf<S> = S extends { type: 'integer' | 'limit' | 'level' }
  ? number
  : S extends { type: 'boolean' }
    ? boolean
    : S extends { type: 'flags'; keys: readonly (infer K extends string)[] }
      ? boolean | { [P in K]?: boolean }
    : S extends { type: 'choice'; values: readonly (infer V)[] }
      ? V
      : S extends { type: 'engine' }
        ? Engine
        : S extends { type: 'dictionary' }
          ? BinaryInput
          : S extends { type: 'progress' }
            ? ProgressCallback
            : never

type RequiredKeys<S> = { [K in keyof S]: S[K] extends { required: string } ? K : never }[keyof S]

/** The options object a schema describes: its entries, optional unless `required`. */
export type OptionsOf<S> = { -readonly [K in keyof S as K extends RequiredKeys<S> ? never : K]?: ValueOf<S[K]> } & { -readonly [K in keyof S as K extends RequiredKeys<S> ? K : never]-?: ValueOf<S[K]> }

/**
 * The key of `known` nearest to `key` by edit distance (insertions, deletions,
 * substitutions and swaps of neighbours: `levle` is one from `level`), if it is near
 * enough to be a typo of it (at most 2 edits, or a third of the key's length); else
 * undefined.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1
  for (const candidate of known) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring). */
function editDistance(a: string, b: string): number {
  // d[i][j]: the distance between a's first i and b's first j characters.
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  }
  return d[a.length]![b.length]!
}

/**
 * `threads` above this is refused (issue 22): each worker holds its own engines (a few
 * MB each), and no runtime we target has more cores to give.
 */
export const MAX_THREADS = 256

/** `threads: 'auto'` uses at most this many. */
export const MAX_AUTO_THREADS = 16

/**
 * Inputs smaller than this run their jobs on the caller's thread whatever `threads`
 * says: below it, posting to workers (and starting them, 70-90 ms on Node 20 here)
 * costs more than the work spread (the repository's bench/threads.ts measures the crossover).
 */
export const MIN_PARALLEL_BYTES = 1024 * 1024

/**
 * Checks the form of `threads` (issue 22): `'auto'` or an integer from 1 to
 * `MAX_THREADS`. Whether the runtime has workers is the threads implementation's check.
 */
export function checkThreadsForm(format: string, value: unknown): void {
  if (value !== undefined && value !== 'auto' && (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_THREADS)) {
    throw new CodecError('INVALID_OPTION', format, `threads must be 'auto' or an integer from 1 to ${MAX_THREADS}, got ${describe(value)}`)
  }
}
