/**
 * The compressed input of a parallel inflate stream as it arrives (an `InflateSource`,
 * inflate-run.ts): the chunks written, kept from the oldest byte the run may still ask
 * for (`release()`), handed out as views where a range lies in one chunk. A write waits
 * (`room()`) while more than `limit` bytes are kept beyond what the run waits for, so
 * that a writer faster than the workers is throttled by them.
 */
import { CodecError } from '../errors.js'
import type { InflateSource } from './inflate-run.js'

export class ArrivingInput implements InflateSource {
  private chunks: Uint8Array[] = []
  /** Offset of `chunks[0]`. */
  private first = 0
  private total = 0
  private ended = false
  /** Whether the run stopped (nothing waits for input any more). */
  stopped = false
  private waiters: { end: number; resolve: (n: number) => void }[] = []
  private wakers: (() => void)[] = []
  private roomWaiter: (() => void) | null = null
  /** The furthest byte the run waits for. */
  private demand = 0

  /** `limit`: the bytes kept beyond what the run waits for before a write waits. */
  constructor(private readonly limit: number) {}

  /** A written chunk, which the input keeps (the caller passes a copy it owns). */
  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return
    this.chunks.push(bytes)
    this.total += bytes.length
    this.wake()
  }

  /** The input ended (the stream's close). */
  end(): void {
    this.ended = true
    this.wake()
  }

  /** The run stopped: writes no longer wait. */
  stop(): void {
    this.stopped = true
    this.roomWaiter?.()
  }

  /** The stream failed: everything waiting goes on (and finds the failure). */
  abort(): void {
    this.ended = true
    this.stop()
    this.wake()
  }

  private wake(): void {
    const waiting = this.waiters
    this.waiters = []
    for (const w of waiting) {
      if (this.ended || this.total >= w.end) w.resolve(Math.min(w.end, this.total))
      else this.waiters.push(w)
    }
    const wakers = this.wakers
    this.wakers = []
    for (const w of wakers) w()
  }

  until(end: number): Promise<number> {
    if (this.ended || this.total >= end) return Promise.resolve(Math.min(end, this.total))
    this.demand = Math.max(this.demand, end)
    this.roomWaiter?.()
    return new Promise((resolve) => this.waiters.push({ end, resolve }))
  }

  available(): number {
    return this.total
  }

  length(): number {
    return this.ended ? this.total : -1
  }

  changed(): Promise<void> {
    return new Promise((r) => this.wakers.push(r))
  }

  slice(from: number, to: number): Uint8Array {
    // The run never asks behind what it released; this would be a bug of ours.
    if (from < this.first) throw new CodecError('INVALID_OPTION', 'gzip', `input byte ${from} was released`)
    const out = new Uint8Array(Math.max(0, to - from))
    let at = this.first
    let n = 0
    for (const c of this.chunks) {
      const a = Math.max(from, at)
      const b = Math.min(to, at + c.length)
      if (a < b) {
        // One chunk: a view, no copy.
        if (b - a === to - from) return c.subarray(a - at, b - at)
        out.set(c.subarray(a - at, b - at), n)
        n += b - a
      }
      at += c.length
      if (at >= to) break
    }
    return out
  }

  release(byte: number): void {
    while (this.chunks.length > 0 && this.first + this.chunks[0]!.length <= byte) this.first += this.chunks.shift()!.length
  }

  /** Resolves when a write may go on: little enough kept, or the run waits for more, or it stopped. */
  room(): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.stopped || this.total - this.first <= this.limit || this.demand > this.total) {
          this.roomWaiter = null
          resolve()
        } else {
          this.roomWaiter = check
        }
      }
      check()
    })
  }
}
