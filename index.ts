/**
 * The package's root entry (`sluice`): the streams layer (span codecs, stream factories,
 * the web-compatible classes, one-shot helpers) and HTTP content-coding for fetch
 * `Response`s. Entry points compose the layers; the layers themselves import downwards
 * only (adapters -> streams -> lib).
 *
 * @module sluice
 */
export * from './streams/index.js'
export { decodeResponse, decodeBody, parseContentEncoding, MAX_CONTENT_ENCODINGS, type DecodeResponseOptions, type DictionariesOption, type DictionaryLookup, type DictionaryInput, type HashedDictionary } from './adapters/fetch/index.js'
export { encodeResponse, isCompressible, negotiate, type EncodeResponseOptions, type ContentCoding, type DictionaryCoding } from './adapters/fetch/index.js'
export { prepareDictionary, useAsDictionary, availableDictionary, parseAvailableDictionary, parseDictionaryId, type DictionarySource, type ServerDictionary, type ServerDictionaryLookup, type ServerDictionariesOption, type UseAsDictionaryOptions } from './adapters/fetch/index.js'
export { httpRangeSource, type HttpRangeSource, type HttpRangeSourceInit } from './adapters/fetch/index.js'
