// facebook/zstd's reference implementation of the seekable format (contrib/seekable_format:
// zstdseek_compress.c, zstdseek_decompress.c and the examples seekable_compression and
// seekable_decompression), built natively with the system's C compiler from Debian's
// source package of zstd, pinned by version and SHA-256 and fetched with apt-get's own
// client (`apt-get source --download-only`), as scripts/build-engines.mjs fetches the
// engines' sources. Built once into a cache folder under the system's temporary folder.
// `referenceTools()` returns the two programs, or why they are not available (no
// network, no compiler): the suite then skips with that reason.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Debian 13's zstd source package; only its upstream tarball is used (`--tar-only`). */
const SOURCE = {
  package: 'libzstd',
  version: '1.5.7+dfsg-1',
  suite: 'trixie',
  file: 'libzstd_1.5.7+dfsg.orig.tar.xz',
  sha256: '0c092ef267edce57ba7f3f2645c861f72eaf5e76273c6c3632869423464b90a5',
  dir: 'zstd-1.5.7',
}

export interface ReferenceTools {
  /** `seekable_compression FILE FRAME_SIZE [LEVEL]` writes FILE.zst (with table checksums). */
  compress: string
  /** `seekable_decompression FILE START END` writes content bytes [START, END) to stdout. */
  decompress: string
}

const cache = join(tmpdir(), `sluice-zstd-seekable-${SOURCE.sha256.slice(0, 12)}`)

function run(command: string, args: string[], cwd?: string): { ok: boolean; output: string } {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 26 })
  return { ok: r.status === 0, output: `${r.error?.message ?? ''}${r.stderr ?? ''}`.trim() }
}

/** The Debian mirror the system's apt configuration uses (deb822 or one-line form). */
function mirror(): string | null {
  const texts: string[] = []
  const dir = '/etc/apt/sources.list.d'
  if (existsSync(dir)) for (const f of readdirSync(dir).sort()) texts.push(readFileSync(join(dir, f), 'utf8'))
  if (existsSync('/etc/apt/sources.list')) texts.push(readFileSync('/etc/apt/sources.list', 'utf8'))
  for (const text of texts) {
    for (const m of text.matchAll(/^(?:URIs:\s*|deb(?:-src)?\s+(?:\[[^\]]*\]\s+)?)(\S+)/gm)) if (/\/debian\/?$/.test(m[1]!)) return m[1]!
  }
  return null
}

/** Downloads and checks the pinned tarball into `work`; its path, or why not. */
function download(work: string): string {
  const uri = mirror()
  if (uri === null) throw new Error('no Debian mirror in the system apt configuration')
  const etc = join(work, 'apt')
  mkdirSync(join(etc, 'lists', 'partial'), { recursive: true })
  mkdirSync(join(etc, 'cache', 'archives', 'partial'), { recursive: true })
  writeFileSync(join(etc, 'sources.list'), `deb-src ${uri} ${SOURCE.suite} main\n`)
  const options = ['-o', `Dir::Etc::SourceList=${join(etc, 'sources.list')}`, '-o', 'Dir::Etc::SourceParts=/nonexistent', '-o', `Dir::State::Lists=${join(etc, 'lists')}`, '-o', `Dir::Cache=${join(etc, 'cache')}`]
  const update = run('apt-get', [...options, '-qq', 'update'])
  if (!update.ok) throw new Error(`apt-get update: ${update.output}`)
  const source = run('apt-get', [...options, '-qq', 'source', '--download-only', '--tar-only', `zstd=${SOURCE.version}`], work)
  const path = join(work, SOURCE.file)
  if (!existsSync(path)) throw new Error(`apt-get source zstd=${SOURCE.version}: ${source.output}`)
  const sha = createHash('sha256').update(readFileSync(path)).digest('hex')
  if (sha !== SOURCE.sha256) throw new Error(`${SOURCE.file}: sha256 ${sha}, expected ${SOURCE.sha256}`)
  return path
}

let result: ReferenceTools | string | undefined

/** The reference programs, built on first use; or a string saying why they are not available. */
export function referenceTools(): ReferenceTools | string {
  if (result !== undefined) return result
  const tools = { compress: join(cache, 'seekable_compression'), decompress: join(cache, 'seekable_decompression') }
  if (existsSync(tools.compress) && existsSync(tools.decompress)) return (result = tools)
  const cc = ['cc', 'gcc', 'clang'].find((c) => run(c, ['--version']).ok)
  if (!cc) return (result = 'no C compiler (apt-get install -y gcc)')
  if (!run('apt-get', ['--version']).ok) return (result = 'no apt-get to fetch the zstd sources')
  const work = `${cache}.work-${process.pid}`
  try {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    const tarball = download(work)
    const untar = run('tar', ['xJf', tarball, '-C', work])
    if (!untar.ok) throw new Error(`tar: ${untar.output}`)
    const src = join(work, SOURCE.dir)
    const lib = join(src, 'lib')
    const seekable = join(src, 'contrib/seekable_format')
    const cflags = ['-O2', '-DXXH_NAMESPACE=ZSTD_', '-DZSTD_LEGACY_SUPPORT=0', '-DZSTD_DISABLE_ASM', `-I${seekable}`, `-I${lib}`, `-I${join(lib, 'common')}`]
    const objects: string[] = []
    const files = ['common', 'compress', 'decompress'].flatMap((d) => readdirSync(join(lib, d)).filter((f) => f.endsWith('.c')).map((f) => join(lib, d, f)))
    files.push(join(seekable, 'zstdseek_compress.c'), join(seekable, 'zstdseek_decompress.c'))
    for (const [i, file] of files.entries()) {
      const object = join(work, `${i}.o`)
      const r = run(cc, [...cflags, '-c', file, '-o', object])
      if (!r.ok) throw new Error(`${cc} ${file}: ${r.output}`)
      objects.push(object)
    }
    mkdirSync(cache, { recursive: true })
    for (const [name, out] of [['seekable_compression', tools.compress], ['seekable_decompression', tools.decompress]] as const) {
      const exe = join(work, name)
      const r = run(cc, [...cflags, join(seekable, 'examples', `${name}.c`), ...objects, '-o', exe, '-lpthread'])
      if (!r.ok) throw new Error(`${cc} ${name}: ${r.output}`)
      renameSync(exe, out)
    }
    return (result = tools)
  } catch (error) {
    return (result = `the reference seekable_format tools could not be built: ${(error as Error).message}`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
