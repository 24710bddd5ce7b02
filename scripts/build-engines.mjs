// Builds sluice's own WebAssembly engines from pinned C sources and records them in
// lib/codecs/wasm/engines.json:
//   lib/codecs/wasm/zstd-dec.wasm    libzstd's decoder (lib/common + lib/decompress)
//   lib/codecs/wasm/zstd-enc.wasm    libzstd's encoder (lib/common + lib/compress)
//   lib/codecs/wasm/brotli-dec.wasm  brotli's decoder + native/brotli-dec.c
//   lib/codecs/wasm/brotli-enc.wasm  brotli's encoder + native/brotli-enc.c
//   lib/codecs/wasm/zlibng-deflate.wasm  zlib-ng's deflate + native/zlibng-deflate.c
// The .wasm files are committed: users and `npm install` never need a compiler.
//
// Sources come from registry packages through their ordinary clients, each pinned by
// version and SHA-256 (SOURCES below): libzstd from the npm package zstd-napi, which
// bundles it (`npm pack`); brotli from Debian's source package (`apt-get source
// --download-only`; the release with shared dictionaries, 1.1, is in Debian 13, so a
// private apt configuration adds that release's source index, on the mirrors the
// system's own apt configuration names); zlib-ng from the same Debian release, where its
// 2.2.4 release ships as a component tarball of the node-yarnpkg source package (Debian
// 13 has no zlib-ng source package of its own). Compiler: Debian's clang and lld for
// wasm32-wasi with Debian's wasi-libc (`apt-get install -y clang lld wasi-libc
// libclang-rt-14-dev-wasm32`).
//
// Usage:
//   node scripts/build-engines.mjs            download, verify, build, write .wasm + manifest
//   node scripts/build-engines.mjs --check    verify the committed .wasm files against the
//                                             manifest (no compiler needed; CI runs this)
//   node scripts/build-engines.mjs --only zlibng-deflate.wasm
//                                             the same for one output (its source only);
//                                             the manifest's other entries stay as they are
//   node scripts/build-engines.mjs --check --rebuild
//                                             also rebuild in a temporary directory and
//                                             compare byte for byte (skipped, with a
//                                             message, when no clang is installed)
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const outDir = join(root, 'lib', 'codecs', 'wasm')
const manifestPath = join(outDir, 'engines.json')
const nativeDir = join(root, 'native')

/** The pinned sources. */
const SOURCES = {
  zstd: {
    name: 'libzstd',
    version: '1.5.7',
    // zstd-napi 0.0.13 bundles libzstd 1.5.7's lib/ (common, compress, decompress).
    registry: 'npm',
    package: 'zstd-napi',
    packageVersion: '0.0.13',
    file: 'zstd-napi-0.0.13.tgz',
    sha256: '5b76defc67c808989c5f3920e14f662d6318b84b8d53ac3e94b99463d8d65e76',
    // Inside the extracted tarball.
    dir: 'package/deps/zstd',
    license: 'package/deps/zstd/LICENSE',
  },
  brotli: {
    name: 'brotli',
    version: '1.1.0',
    // Debian 13's source package; only its upstream tarball is downloaded and used
    // (`--tar-only`: no Debian patches).
    registry: 'debian',
    package: 'brotli',
    packageVersion: '1.1.0-2+deb13u1',
    suite: 'trixie',
    file: 'brotli_1.1.0.orig.tar.gz',
    sha256: '10973f4b4199eafa1d5735ef661ddb2ec2f97319ee9fd1824d4aabe08cff5265',
    dir: 'google-brotli-ed738e8',
    license: 'google-brotli-ed738e8/LICENSE',
  },
  zlibng: {
    name: 'zlib-ng',
    version: '2.2.4',
    // Debian 13 ships zlib-ng 2.2.4's release tree as the `zlib-ng` component tarball of
    // its node-yarnpkg source package (yarn's libzip build uses it); only that tarball
    // is used.
    registry: 'debian',
    package: 'node-yarnpkg',
    packageVersion: '4.1.0+dfsg-1',
    suite: 'trixie',
    file: 'node-yarnpkg_4.1.0+dfsg.orig-zlib-ng.tar.xz',
    sha256: 'c8390d72b059003d3e1d2e4c3596b2f0e2820e02cfd421b14dfe44d9db58fca5',
    dir: 'zlib-ng-2.2.4',
    license: 'zlib-ng-2.2.4/LICENSE.md',
  },
}

const CLANG = process.env.CLANG ?? 'clang'

/** Flags every object is compiled with. */
const CFLAGS = [
  '--target=wasm32-wasi',
  '-O3',
  '-msimd128',
  '-mbulk-memory',
  '-mnontrapping-fptoint',
  '-msign-ext',
  '-DNDEBUG',
  // Paths and build machines must not leak into the output.
  '-ffile-prefix-map=/=',
  '-fno-ident',
]

/** Linker flags: a reactor module with no imports, growable to the wasm32 limit we use. */
const LDFLAGS = [
  '--target=wasm32-wasi',
  '-mexec-model=reactor',
  '-Wl,--max-memory=2147483648',
  '-Wl,-z,stack-size=262144',
  '-Wl,--strip-all',
  '-Wl,--gc-sections',
]

/**
 * The libzstd functions the JS side calls (lib/codecs/wasm/zstd-engine.ts), per module:
 * decoding never loads the encoder, nor encoding the decoder.
 */
const ZSTD_COMMON_EXPORTS = ['malloc', 'free', 'ZSTD_versionNumber', 'ZSTD_isError']
const ZSTD_DECODER_EXPORTS = [
  ...ZSTD_COMMON_EXPORTS,
  'ZSTD_getFrameContentSize',
  'ZSTD_getDictID_fromDict',
  'ZSTD_getDictID_fromFrame',
  'ZSTD_createDStream',
  'ZSTD_freeDStream',
  'ZSTD_initDStream',
  'ZSTD_DCtx_reset',
  'ZSTD_DCtx_setParameter',
  'ZSTD_DCtx_refPrefix',
  'ZSTD_DCtx_loadDictionary',
  'ZSTD_decompressStream_simpleArgs',
  'ZSTD_decompressDCtx',
  'ZSTD_decompress_usingDict',
]
const ZSTD_ENCODER_EXPORTS = [
  ...ZSTD_COMMON_EXPORTS,
  'ZSTD_createCStream',
  'ZSTD_freeCStream',
  'ZSTD_initCStream',
  'ZSTD_CCtx_reset',
  'ZSTD_CCtx_setParameter',
  'ZSTD_CCtx_setPledgedSrcSize',
  'ZSTD_CCtx_refPrefix',
  'ZSTD_CCtx_loadDictionary',
  'ZSTD_compressStream2_simpleArgs',
  'ZSTD_compress2',
  'ZSTD_compressBound',
  // The encoder checks a trained dictionary's entropy tables when it is given (a CDict
  // parses them at once; ZSTD_CCtx_loadDictionary only at the first frame).
  'ZSTD_createCDict',
  'ZSTD_freeCDict',
]

const ZSTD_DEFINES = [
  '-DZSTD_LEGACY_SUPPORT=0',
  '-DZSTD_DISABLE_ASM',
  '-DZSTD_NO_TRACE',
  '-DDEBUGLEVEL=0',
  '-DZSTD_STRIP_ERROR_STRINGS',
]

const BROTLI_DEFINES = [
  // wasm32 has native 64-bit integers: brotli's 64-bit bit reader and match-length
  // compare (its own build option) measured 6-10% faster than its 32-bit defaults.
  '-DBROTLI_BUILD_64_BIT',
]

/**
 * zlib-ng's configuration without CMake: what its CMakeLists.txt would detect for
 * wasm32-wasi with clang. No architecture-specific code exists for wasm, so the generic C
 * functions are called directly (no CPU detection or function table). The
 * `HAVE_BUILTIN_CTZLL` compare256 reads 8 bytes at a time (wasm loads need no alignment).
 */
const ZLIBNG_DEFINES = [
  '-DDISABLE_RUNTIME_CPU_DETECTION',
  '-DHAVE_BUILTIN_CTZ',
  '-DHAVE_BUILTIN_CTZLL',
  '-DHAVE_ATTRIBUTE_ALIGNED',
  '-DHAVE_BUILTIN_ASSUME_ALIGNED',
  '-DHAVE_POSIX_MEMALIGN',
]

/** zlib-ng's library sources (CMakeLists.txt ZLIB_SRCS less inflate, infback and the gz* file API). */
const ZLIBNG_SOURCES = [
  'arch/generic/adler32_c.c',
  'arch/generic/adler32_fold_c.c',
  'arch/generic/compare256_c.c',
  'arch/generic/crc32_braid_c.c',
  'arch/generic/crc32_fold_c.c',
  'arch/generic/slide_hash_c.c',
  'adler32.c',
  'crc32.c',
  'crc32_braid_comb.c',
  'deflate.c',
  'deflate_fast.c',
  'deflate_huff.c',
  'deflate_medium.c',
  'deflate_quick.c',
  'deflate_rle.c',
  'deflate_slow.c',
  'deflate_stored.c',
  'insert_string.c',
  'insert_string_roll.c',
  'trees.c',
  'zutil.c',
]

/**
 * The headers CMake would generate for zlib-ng's native (zng_) API with no symbol prefix:
 * zlib-ng.h and zconf-ng.h from their templates, an empty name-mangling header.
 */
function configureZlibng(dir) {
  writeFileSync(join(dir, 'zlib-ng.h'), readFileSync(join(dir, 'zlib-ng.h.in'), 'utf8').replaceAll('@ZLIB_SYMBOL_PREFIX@', ''))
  writeFileSync(join(dir, 'zconf-ng.h'), readFileSync(join(dir, 'zconf-ng.h.in')))
  writeFileSync(join(dir, 'zlib_name_mangling-ng.h'), readFileSync(join(dir, 'zlib_name_mangling.h.empty')))
}

/** What each output is built from (paths relative to the source's dir). */
const ENGINES = [
  {
    file: 'zstd-dec.wasm',
    source: 'zstd',
    sources: (dir) => [...cFiles(join(dir, 'lib/common')), ...cFiles(join(dir, 'lib/decompress'))],
    cflags: (dir) => [...ZSTD_DEFINES, `-I${join(dir, 'lib')}`, `-I${join(dir, 'lib/common')}`],
    ldflags: ZSTD_DECODER_EXPORTS.map((name) => `-Wl,--export=${name}`),
  },
  {
    file: 'zstd-enc.wasm',
    source: 'zstd',
    sources: (dir) => [...cFiles(join(dir, 'lib/common')), ...cFiles(join(dir, 'lib/compress')).filter((f) => !f.endsWith('zstdmt_compress.c'))],
    cflags: (dir) => [...ZSTD_DEFINES, `-I${join(dir, 'lib')}`, `-I${join(dir, 'lib/common')}`],
    ldflags: ZSTD_ENCODER_EXPORTS.map((name) => `-Wl,--export=${name}`),
  },
  {
    file: 'brotli-dec.wasm',
    source: 'brotli',
    sources: (dir) => [...cFiles(join(dir, 'c/common')), ...cFiles(join(dir, 'c/dec')), join(nativeDir, 'brotli-dec.c')],
    cflags: (dir) => [`-I${join(dir, 'c/include')}`, ...BROTLI_DEFINES],
    ldflags: ['-Wl,--export=malloc', '-Wl,--export=free'],
  },
  {
    file: 'brotli-enc.wasm',
    source: 'brotli',
    sources: (dir) => [...cFiles(join(dir, 'c/common')), ...cFiles(join(dir, 'c/enc')), join(nativeDir, 'brotli-enc.c')],
    // Out of memory fails the call (the encoder reports an error) instead of exit().
    cflags: (dir) => [`-I${join(dir, 'c/include')}`, ...BROTLI_DEFINES, '-DBROTLI_ENCODER_CLEANUP_ON_OOM'],
    ldflags: ['-Wl,--export=malloc', '-Wl,--export=free'],
  },
  {
    file: 'zlibng-deflate.wasm',
    source: 'zlibng',
    configure: configureZlibng,
    sources: (dir) => [...ZLIBNG_SOURCES.map((f) => join(dir, f)), join(nativeDir, 'zlibng-deflate.c')],
    // Link-time optimisation: the match finder, hashing and block writer live in
    // different files; inlined across them level 1 measured 10% faster, level 6 2%
    // (docs/performance-engines.md). -msimd128 (CFLAGS) measured 2-35% faster than without.
    cflags: (dir) => [`-I${dir}`, ...ZLIBNG_DEFINES, '-flto'],
    ldflags: ['-flto', '-O3', '-Wl,--export=malloc', '-Wl,--export=free'],
  },
]

function cFiles(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.c'))
    .sort()
    .map((f) => join(dir, f))
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex')

function run(command, args, options = {}) {
  return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'inherit'], ...options }).toString()
}

/** Downloads `source`'s pinned file into `dir` with its registry's client; returns its path. */
function download(source, dir) {
  if (source.registry === 'npm') {
    run('npm', ['pack', `${source.package}@${source.packageVersion}`, '--pack-destination', dir, '--silent'])
  } else {
    // A private apt configuration (lists and cache under `dir`) that adds the source
    // index of `source.suite` on the mirrors the system's apt configuration already uses.
    const mirrors = systemMirrors()
    const etc = join(dir, 'apt')
    mkdirSync(join(etc, 'lists', 'partial'), { recursive: true })
    mkdirSync(join(etc, 'cache', 'archives', 'partial'), { recursive: true })
    writeFileSync(join(etc, 'sources.list'), `deb-src ${mirrors.main} ${source.suite} main\n`)
    const options = [
      '-o', `Dir::Etc::SourceList=${join(etc, 'sources.list')}`,
      '-o', 'Dir::Etc::SourceParts=/nonexistent',
      '-o', `Dir::State::Lists=${join(etc, 'lists')}`,
      '-o', `Dir::Cache=${join(etc, 'cache')}`,
    ]
    run('apt-get', [...options, '-qq', 'update'])
    run('apt-get', [...options, '-qq', 'source', '--download-only', '--tar-only', `${source.package}=${source.packageVersion}`], { cwd: dir })
  }
  const path = join(dir, source.file)
  const actual = sha256(readFileSync(path))
  if (actual !== source.sha256) throw new Error(`${source.file}: sha256 ${actual}, expected ${source.sha256}`)
  return path
}

/** The Debian mirror URI of the system's apt configuration (deb822 or one-line form). */
function systemMirrors() {
  const texts = []
  for (const dir of ['/etc/apt/sources.list.d']) {
    if (existsSync(dir)) for (const f of readdirSync(dir).sort()) texts.push(readFileSync(join(dir, f), 'utf8'))
  }
  if (existsSync('/etc/apt/sources.list')) texts.push(readFileSync('/etc/apt/sources.list', 'utf8'))
  const uris = []
  for (const text of texts) {
    for (const m of text.matchAll(/^URIs:\s*(\S+)/gm)) uris.push(m[1])
    for (const m of text.matchAll(/^deb(?:-src)?\s+(?:\[[^\]]*\]\s+)?(\S+)/gm)) uris.push(m[1])
  }
  const main = uris.find((u) => /\/debian\/?$/.test(u))
  if (!main) throw new Error('no Debian mirror found in the system apt configuration')
  return { main }
}

/** Compiles and links one engine; returns its bytes. */
function build(engine, srcDir, work) {
  const objects = []
  engine.configure?.(srcDir)
  const sources = engine.sources(srcDir)
  const cflags = [...CFLAGS, ...engine.cflags(srcDir)]
  for (const [i, file] of sources.entries()) {
    const object = join(work, `${engine.file}.${i}.o`)
    run(CLANG, [...cflags, '-c', file, '-o', object], { cwd: srcDir })
    objects.push(object)
  }
  const output = join(work, engine.file)
  run(CLANG, [...LDFLAGS, ...engine.ldflags, ...objects, '-o', output])
  const bytes = readFileSync(output)
  const imports = WebAssembly.Module.imports(new WebAssembly.Module(bytes))
  if (imports.length > 0) throw new Error(`${engine.file} imports ${imports.map((i) => `${i.module}.${i.name}`).join(', ')}: expected none`)
  return bytes
}

function clangVersion() {
  return run(CLANG, ['--version']).split('\n')[0].trim()
}

/** The Debian package version of the C library the engines link (wasi-libc). */
function libcVersion() {
  try {
    return `wasi-libc ${run('dpkg-query', ['-W', '-f', '${Version}', 'wasi-libc']).trim()}`
  } catch {
    return 'unknown'
  }
}

function hasClang() {
  try {
    clangVersion()
    return true
  } catch {
    return false
  }
}

/** Downloads, verifies, builds every engine (or the one named `only`) into `work`; returns {file: bytes} and the sources' dirs. */
function buildAll(work, only) {
  const engines = ENGINES.filter((e) => !only || e.file === only)
  if (engines.length === 0) throw new Error(`--only ${only}: no such output (${ENGINES.map((e) => e.file).join(', ')})`)
  const dirs = {}
  for (const [key, source] of Object.entries(SOURCES)) {
    if (!engines.some((e) => e.source === key)) continue
    const archive = download(source, work)
    const dir = join(work, key)
    mkdirSync(dir, { recursive: true })
    run('tar', ['xf', archive, '-C', dir])
    dirs[key] = dir
  }
  const outputs = {}
  for (const engine of engines) outputs[engine.file] = build(engine, join(dirs[engine.source], SOURCES[engine.source].dir), work)
  return { outputs, dirs }
}

function check(rebuild) {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
  let failures = 0
  for (const [file, entry] of Object.entries(manifest.outputs)) {
    const path = join(outDir, file)
    const actual = existsSync(path) ? sha256(readFileSync(path)) : 'missing'
    const ok = actual === entry.sha256
    if (!ok) failures++
    console.log(`${ok ? 'ok' : 'MISMATCH'}: ${file} sha256 ${actual}${ok ? '' : `, manifest ${entry.sha256}`}`)
  }
  for (const [key, source] of Object.entries(SOURCES)) {
    const recorded = manifest.sources[key]
    if (recorded?.sha256 !== source.sha256 || recorded?.version !== source.version) {
      failures++
      console.log(`MISMATCH: source ${key} in the manifest differs from this script's pin`)
    }
  }
  if (rebuild) {
    if (!hasClang()) console.log('skipped: rebuild (no clang installed)')
    else if (clangVersion() !== manifest.compiler || libcVersion() !== manifest.libc) {
      console.log(`skipped: rebuild (${clangVersion()}, ${libcVersion()}; the files were built with ${manifest.compiler}, ${manifest.libc})`)
    }
    else {
      const work = mkdtempSync(join(tmpdir(), 'sluice-engines-'))
      try {
        const { outputs } = buildAll(work)
        for (const [file, bytes] of Object.entries(outputs)) {
          const ok = sha256(bytes) === manifest.outputs[file]?.sha256
          if (!ok) failures++
          console.log(`${ok ? 'ok' : 'MISMATCH'}: rebuilt ${file} sha256 ${sha256(bytes)}`)
        }
      } finally {
        rmSync(work, { recursive: true, force: true })
      }
    }
  }
  if (failures > 0) {
    console.log(`${failures} mismatch(es)`)
    process.exit(1)
  }
}

function main() {
  const args = process.argv.slice(2)
  if (args.includes('--check')) return check(args.includes('--rebuild'))
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined
  const work = mkdtempSync(join(tmpdir(), 'sluice-engines-'))
  try {
    const { outputs, dirs } = buildAll(work, only)
    const manifest = { compiler: clangVersion(), libc: libcVersion(), cflags: CFLAGS, ldflags: LDFLAGS, sources: {}, outputs: {} }
    if (only) {
      // One output rebuilt: the others stay as recorded, built by the same compiler.
      const recorded = JSON.parse(readFileSync(manifestPath, 'utf8'))
      if (recorded.compiler !== manifest.compiler || recorded.libc !== manifest.libc) throw new Error(`--only: the other outputs were built with ${recorded.compiler}, ${recorded.libc}; rebuild them all`)
      Object.assign(manifest.sources, recorded.sources)
      Object.assign(manifest.outputs, recorded.outputs)
    }
    for (const [key, source] of Object.entries(SOURCES)) {
      if (!dirs[key]) continue
      const { dir: _dir, license: _license, ...pin } = source
      manifest.sources[key] = pin
      mkdirSync(join(outDir, 'licenses'), { recursive: true })
      writeFileSync(join(outDir, 'licenses', `${key}-LICENSE`), readFileSync(join(dirs[key], source.license)))
    }
    // wasi-libc's malloc, memcpy and friends are linked into every engine.
    const libcCopyright = '/usr/share/doc/wasi-libc/copyright'
    if (existsSync(libcCopyright)) writeFileSync(join(outDir, 'licenses', 'wasi-libc-copyright'), readFileSync(libcCopyright))
    for (const [file, bytes] of Object.entries(outputs)) {
      writeFileSync(join(outDir, file), bytes)
      const engine = ENGINES.find((e) => e.file === file)
      // The engine's own flags, without the include paths (which name the temporary directory).
      const flags = [...engine.cflags(''), ...engine.ldflags].filter((f) => !f.startsWith('-I'))
      const srcDir = join(dirs[engine.source], SOURCES[engine.source].dir)
      const inputs = engine.sources(srcDir).map((f) => relative(f.startsWith(nativeDir) ? root : srcDir, f))
      manifest.outputs[file] = { source: engine.source, bytes: bytes.length, sha256: sha256(bytes), flags, inputs }
      console.log(`${relative(root, join(outDir, file))}  ${bytes.length} bytes  sha256 ${sha256(bytes)}`)
    }
    writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n')
  } finally {
    if (!process.env.KEEP_WORK) rmSync(work, { recursive: true, force: true })
    else console.log(`work directory kept: ${work}`)
  }
}

main()
