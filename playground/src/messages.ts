/** What the page and its worker (worker.ts) say to each other. */
import type { BenchMeasure, BenchSpec } from '../../adapters/bench/measure.js'

/** A job for a fresh worker. */
export type Job =
  | { type: 'measure'; file: Blob; spec: BenchSpec; rounds: number }
  | { type: 'encode'; file: Blob; spec: BenchSpec }
  | { type: 'inspect'; file: Blob; name: string }

/** What the worker answers: progress reports, then one result or an error. */
export type Reply =
  | { type: 'progress'; done: number; total: number }
  | { type: 'row'; row: BenchMeasure }
  | { type: 'encoded'; blob: Blob }
  | { type: 'inspected'; kind: string | null; text: string; decoded: Blob | null; decodeError: string | null }
  | { type: 'error'; message: string }
