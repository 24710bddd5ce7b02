/**
 * The `xxh32` job of a one-shot parallel LZ4 decode (issue 32, "the caller's thread
 * orders and hands out, nothing more"): the frames' content checksums carried over
 * outputs of earlier jobs, in order, from the state the last such job left. XXH32 does
 * not combine from parts (each lane's state goes through rotate-and-multiply), so the
 * hash runs over the content in order, one job at a time (hash-chain.ts sends them); it
 * runs beside the decoding jobs instead of on the caller's thread.
 *
 * The outputs move to the worker (transferred: the caller has copied them into the
 * result already) and stay there: the worker's next decoding jobs write into them
 * (scratch.ts), memory whose pages are written already.
 */
import type { Format } from '../codec.js'
import { Xxh32, type Xxh32State } from '../codecs/xxhash32.js'

/** A step of `HashJob.steps`: start a content hash (seed 0). */
export const HASH_RESET = -1
/** A step of `HashJob.steps`: the content hash's digest, into `HashResult.digests`. */
export const HASH_DIGEST = -2

export interface HashJob {
  readonly kind: 'xxh32'
  /** Whose content (for errors). */
  readonly format: Format
  /** Empty: a pool posts every job's `input`. */
  readonly input: Uint8Array
  /** The outputs: the first `lengths[i]` bytes of `parts[i]`. */
  readonly parts: readonly ArrayBuffer[]
  readonly lengths: readonly number[]
  /** The steps, in order: `HASH_RESET`, `HASH_DIGEST`, or `k >= 0`: part `k` hashed. */
  readonly steps: readonly number[]
  /** The hash state the steps go on from (null: none begun). */
  readonly state: Xxh32State | null
  /** Whether the realm that runs it keeps `parts` for later jobs' output memory (a worker's; not the caller's). */
  readonly keep: boolean
}

/** What an `xxh32` job gives back (`JobResult.hash`). */
export interface HashResult {
  /** The hash state after the steps (null: none begun). */
  readonly state: Xxh32State | null
  /** The digests of the `HASH_DIGEST` steps, in order. */
  readonly digests: number[]
}

/** Runs the steps of `job`. */
export function runHash(job: HashJob): HashResult {
  let hash = job.state ? Xxh32.restore(job.state) : null
  const digests: number[] = []
  for (const step of job.steps) {
    if (step === HASH_RESET) (hash ??= new Xxh32()).reset()
    else if (step === HASH_DIGEST) digests.push(hash ? hash.digest() : 0)
    else hash?.update(new Uint8Array(job.parts[step]!, 0, job.lengths[step]))
  }
  return { state: hash ? hash.save() : null, digests }
}
