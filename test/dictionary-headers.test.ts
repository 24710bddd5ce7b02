// The RFC 9842 header helpers: useAsDictionary() builds a structured-field Dictionary
// (RFC 8941) for Use-As-Dictionary and refuses what the header cannot carry;
// availableDictionary() and parseAvailableDictionary() write and read the `:base64:`
// SHA-256 (strictly: one Byte Sequence of exactly 32 bytes, or null); parseDictionaryId()
// reads Dictionary-ID's String.
import { createHash } from 'node:crypto'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { availableDictionary, parseAvailableDictionary, parseDictionaryId, useAsDictionary } from '../adapters/fetch/index.js'
import { CodecError } from '../lib/errors.js'
import { thrown } from './_caught.js'

const hash = new Uint8Array(createHash('sha256').update('a dictionary').digest())
const b64 = Buffer.from(hash).toString('base64')

function invalid(fn: () => unknown, pattern: RegExp): void {
  const e = thrown(fn)
  assert.instance(e, CodecError)
  assert.is((e as CodecError).code, 'INVALID_OPTION')
  assert.match((e as CodecError).message, pattern)
}

test('useAsDictionary serializes match, match-dest, id and type in order', () => {
  assert.is(useAsDictionary({ match: '/data/*' }), 'match="/data/*"')
  assert.is(useAsDictionary({ match: '/app/*/main.js', matchDest: ['script', 'worker'], id: 'app-v1', type: 'raw' }), 'match="/app/*/main.js", match-dest=("script" "worker"), id="app-v1", type=raw')
  assert.is(useAsDictionary({ match: '/p', matchDest: [] }), 'match="/p", match-dest=()')
  // Quotes and backslashes are escaped (RFC 8941 section 4.1.6).
  assert.is(useAsDictionary({ match: '/a\\(b', id: 'say "hi"' }), 'match="/a\\\\(b", id="say \\"hi\\""')
  // The empty id is the default and left out.
  assert.is(useAsDictionary({ match: '/x', id: '' }), 'match="/x"')
  assert.is(useAsDictionary({ match: '/x', id: 'i'.repeat(1024) }), `match="/x", id="${'i'.repeat(1024)}"`)
})

test('useAsDictionary refuses what the header cannot carry', () => {
  invalid(() => useAsDictionary(undefined as never), /takes an object/)
  invalid(() => useAsDictionary({} as never), /match must be a string, got undefined/)
  invalid(() => useAsDictionary({ match: '' }), /match must not be empty/)
  invalid(() => useAsDictionary({ match: '/düsseldorf' }), /match has U\+00FC at index 2, which a structured-field String cannot carry/)
  invalid(() => useAsDictionary({ match: '/a\nb' }), /match has U\+000A at index 2/)
  invalid(() => useAsDictionary({ match: '/:id(\\d+)' }), /regular-expression group at index 4/)
  invalid(() => useAsDictionary({ match: '/x', matchDest: 'script' as never }), /matchDest must be an array of strings/)
  invalid(() => useAsDictionary({ match: '/x', matchDest: ['script', 7 as never] }), /matchDest\[1\] must be a string, got number/)
  invalid(() => useAsDictionary({ match: '/x', id: 'i'.repeat(1025) }), /id has 1025 characters, more than the 1024/)
  invalid(() => useAsDictionary({ match: '/x', id: 'caf\u00e9' }), /id has U\+00E9 at index 3/)
  invalid(() => useAsDictionary({ match: '/x', type: 'two words' }), /type must be a structured-field Token/)
  invalid(() => useAsDictionary({ match: '/x', type: '1raw' }), /Token/)
})

test('availableDictionary writes the :base64: form of a 32-byte hash', () => {
  assert.is(availableDictionary(hash), `:${b64}:`)
  assert.is(availableDictionary(hash.buffer.slice(hash.byteOffset, hash.byteOffset + 32)), `:${b64}:`)
  // The example of RFC 9842 section 2.2, read back and written again.
  const example = ':pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4=:'
  assert.is(availableDictionary(parseAvailableDictionary(example)!), example)
  invalid(() => availableDictionary(hash.subarray(1)), /32-byte SHA-256, got 31 bytes/)
  invalid(() => availableDictionary('abc' as never), /ArrayBuffer or an ArrayBufferView/)
})

test('parseAvailableDictionary reads one sf-binary of exactly 32 bytes', () => {
  const parsed = parseAvailableDictionary(`:${b64}:`)
  assert.ok(parsed instanceof Uint8Array)
  assert.equal([...parsed!], [...hash])
  // Leading and trailing spaces (RFC 8941 section 4.2), parameters (ignored, section
  // 3.1.2), padding left out and non-zero pad bits (section 4.2.7: SHOULD NOT fail).
  assert.equal([...parseAvailableDictionary(`  :${b64}:  `)!], [...hash])
  assert.equal([...parseAvailableDictionary(`:${b64}:;a=1;b="x";c;d=?0;e=tok;f=:AA==:;g=-1.5`)!], [...hash])
  assert.equal([...parseAvailableDictionary(`:${b64.replace(/=$/, '')}:`)!], [...hash])
  const last = b64.at(-2)!
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  const padBits = b64.slice(0, -2) + alphabet[alphabet.indexOf(last) | 1] + '='
  assert.equal([...parseAvailableDictionary(`:${padBits}:`)!], [...hash])
})

test('parseAvailableDictionary returns null for every malformed value', () => {
  const bad: Array<[string | null, string]> = [
    [null, 'absent'],
    ['', 'empty'],
    [b64, 'no colons'],
    [`:${b64}`, 'no closing colon'],
    [`"${b64}"`, 'a String'],
    ['abc', 'a Token'],
    ['42', 'an Integer'],
    ['::', 'empty Byte Sequence'],
    [`:${Buffer.from(hash.subarray(0, 31)).toString('base64')}:`, '31 bytes'],
    [`:${Buffer.concat([hash, Buffer.of(1)]).toString('base64')}:`, '33 bytes'],
    [`:${Buffer.from(createHash('sha512').update('x').digest()).toString('base64')}:`, 'a SHA-512'],
    [`:-${b64.slice(1)}:`, "base64url's -"],
    [`:_${b64.slice(1)}:`, "base64url's _"],
    [`:${b64.slice(0, 20)} ${b64.slice(20)}:`, 'a space inside'],
    [`:${b64.slice(0, 20)}=${b64.slice(21)}:`, '= inside the data'],
    [`:${b64}==:`, 'too much padding'],
    [`:${b64.slice(0, 41)}:`, 'a length no base64 has'],
    [`:${b64}:, :${b64}:`, 'two field lines joined (a List, not an Item)'],
    [`:${b64}: x`, 'trailing garbage'],
    [`:${b64}:;A=1`, 'an upper-case parameter key'],
    [`:${b64}:;a=`, 'a parameter without a value after ='],
    [`:${b64}:;a=1.`, 'a decimal without fraction digits'],
    [`:${b64}:;a="x`, 'an unterminated String parameter'],
    [`\t:${b64}:`, 'a leading tab (only SP is skipped)'],
  ]
  for (const [value, why] of bad) assert.is(parseAvailableDictionary(value), null, why)
})

test('parseDictionaryId reads a String of up to 1024 characters', () => {
  assert.is(parseDictionaryId('"dictionary-12345"'), 'dictionary-12345')
  assert.is(parseDictionaryId('"a \\"q\\" \\\\ b"'), 'a "q" \\ b')
  assert.is(parseDictionaryId(`"${'i'.repeat(1024)}"`), 'i'.repeat(1024))
  for (const value of [null, '', 'token', '"open', '"bad \\n escape"', `"${'i'.repeat(1025)}"`, '"a", "b"', `:${b64}:`]) {
    assert.is(parseDictionaryId(value), null, String(value))
  }
})

test.run()
