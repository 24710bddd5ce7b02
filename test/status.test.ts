import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Status, statusName } from '../lib/status.js'
import { CodecError } from '../lib/errors.js'

test('statuses are distinct small integers and frozen', () => {
  assert.equal([Status.Done, Status.DestinationTooSmall, Status.NeedMoreData, Status.InvalidData], [0, 1, 2, 3])
  assert.ok(Object.isFrozen(Status))
  assert.is(statusName(Status.NeedMoreData), 'NeedMoreData')
})

test('CodecError carries code, format and offset in its message', () => {
  const e = new CodecError('INVALID_DATA', 'gzip', 'bad magic 1f 00, expected 1f 8b', 0)
  assert.is(e.code, 'INVALID_DATA')
  assert.is(e.format, 'gzip')
  assert.is(e.offset, 0)
  assert.match(e.message, /gzip: bad magic .* \(at byte 0\)/)
  assert.instance(e, Error)
})

test.run()
