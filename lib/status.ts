/**
 * The result of one step of a span codec, with the meanings of .NET's
 * `System.Buffers.OperationStatus`:
 *
 * - `Done`: all input was processed. For a decoder this means the frame, member or
 *   stream ended; bytes after the end are left unconsumed for the caller to judge
 *   (another concatenated frame, or trailing junk).
 * - `DestinationTooSmall`: the destination is full; call again with more room.
 * - `NeedMoreData`: the input ran out before a unit could complete. Everything that can
 *   be used has been consumed; the caller appends more input and calls again. When
 *   there is no more input, the caller (not the codec) decides this is truncation.
 * - `InvalidData`: the input is not valid and no further input can make it valid.
 *   Final: the codec must be `reset()` before it is used again.
 */
export const Status = Object.freeze({
  /** All input was processed: for a decoder, the frame, member or stream ended. */
  Done: 0,
  /** The destination is full; call again with more room. */
  DestinationTooSmall: 1,
  /** The input ran out before a unit could complete; append more and call again. */
  NeedMoreData: 2,
  /** The input is not valid and no further input can make it valid (final until `reset()`). */
  InvalidData: 3,
} as const)

export type Status = (typeof Status)[keyof typeof Status]

const names = ['Done', 'DestinationTooSmall', 'NeedMoreData', 'InvalidData'] as const

/** The name of a status, for messages and test output. */
export function statusName(status: Status): string {
  return names[status] ?? `Status(${status})`
}
