/**
 * A small FlatBuffers writer for the handful of Arrow IPC tables (Message, Schema,
 * Footer). It lays the buffer out front to back: the root offset, then each table
 * preceded by its vtable, then the objects the table points to. FlatBuffers only asks
 * that offsets (uoffset_t) point forward and that scalars are naturally aligned
 * (https://flatbuffers.dev/internals/), which this layout gives, so readers (ours,
 * apache-arrow's, Arrow C++'s verifier) accept it.
 */

/** A scalar or reference stored in a table slot. */
export type FbField =
  | { t: 'u8'; v: number }
  | { t: 'i16'; v: number }
  | { t: 'i32'; v: number }
  | { t: 'i64'; v: number }
  | { t: 'ref'; v: FbNode }

export type FbNode =
  | { t: 'table'; slots: (FbField | undefined)[] }
  | { t: 'string'; v: string }
  | { t: 'tables'; v: FbNode[] }
  /** A vector of 8-byte-aligned structs, given as their raw little-endian bytes. */
  | { t: 'structs'; count: number; bytes: Uint8Array }
  | { t: 'i32s'; v: number[] }
  | { t: 'i64s'; v: number[] }

export const table = (slots: (FbField | undefined)[]): FbNode => ({ t: 'table', slots })
export const u8 = (v: number): FbField => ({ t: 'u8', v })
export const i16 = (v: number): FbField => ({ t: 'i16', v })
export const i32 = (v: number): FbField => ({ t: 'i32', v })
export const i64 = (v: number): FbField => ({ t: 'i64', v })
export const ref = (v: FbNode): FbField => ({ t: 'ref', v })
export const str = (v: string): FbField => ({ t: 'ref', v: { t: 'string', v } })

const utf8 = /* @__PURE__ */ new TextEncoder()

const sizeOf = (f: FbField): number => (f.t === 'u8' ? 1 : f.t === 'i16' ? 2 : f.t === 'i64' ? 8 : 4)

class Writer {
  buf = new Uint8Array(256)
  view = new DataView(this.buf.buffer)
  pos = 0

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.pos + n) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.pos))
    this.buf = next
    this.view = new DataView(next.buffer)
  }

  /** Pads with zeros until `(pos + bias) % align === 0`. */
  align(align: number, bias = 0): void {
    const pad = (align - ((this.pos + bias) % align)) % align
    this.ensure(pad)
    this.buf.fill(0, this.pos, this.pos + pad)
    this.pos += pad
  }

  writeInt(f: FbField, at: number): void {
    const v = f.v as number
    switch (f.t) {
      case 'u8': this.view.setUint8(at, v); break
      case 'i16': this.view.setInt16(at, v, true); break
      case 'i32': this.view.setInt32(at, v, true); break
      case 'i64': this.view.setBigInt64(at, BigInt(v), true); break
    }
  }

  /** Writes `node` at the current position (aligned); returns where it starts. */
  node(node: FbNode): number {
    switch (node.t) {
      case 'table': return this.table(node.slots)
      case 'string': {
        const bytes = utf8.encode(node.v)
        this.align(4)
        const at = this.pos
        this.ensure(4 + bytes.length + 1)
        this.view.setUint32(at, bytes.length, true)
        this.buf.set(bytes, at + 4)
        this.buf[at + 4 + bytes.length] = 0
        this.pos += 4 + bytes.length + 1
        return at
      }
      case 'tables': {
        this.align(4)
        const at = this.pos
        this.ensure(4 + node.v.length * 4)
        this.view.setUint32(at, node.v.length, true)
        this.pos += 4 + node.v.length * 4
        node.v.forEach((child, i) => {
          const slot = at + 4 + i * 4
          const target = this.node(child)
          this.view.setUint32(slot, target - slot, true)
        })
        return at
      }
      case 'structs': case 'i64s': {
        // The elements must be 8-aligned; the u32 count sits just before them.
        this.align(8, 4)
        const at = this.pos
        const n = node.t === 'structs' ? node.count : node.v.length
        const bytes = node.t === 'structs' ? node.bytes.length : n * 8
        this.ensure(4 + bytes)
        this.view.setUint32(at, n, true)
        if (node.t === 'structs') this.buf.set(node.bytes, at + 4)
        else node.v.forEach((v, i) => this.view.setBigInt64(at + 4 + i * 8, BigInt(v), true))
        this.pos += 4 + bytes
        return at
      }
      case 'i32s': {
        this.align(4)
        const at = this.pos
        this.ensure(4 + node.v.length * 4)
        this.view.setUint32(at, node.v.length, true)
        node.v.forEach((v, i) => this.view.setInt32(at + 4 + i * 4, v, true))
        this.pos += 4 + node.v.length * 4
        return at
      }
    }
  }

  table(slots: (FbField | undefined)[]): number {
    // Lay the fields out largest first so each is naturally aligned in a table that
    // starts 8-aligned: [soffset:4][pad:4 if any 8-byte field][8s][4s][2s][1s].
    const order = slots
      .map((f, slot) => ({ f, slot }))
      .filter((x): x is { f: FbField; slot: number } => x.f !== undefined)
      .sort((a, b) => sizeOf(b.f) - sizeOf(a.f))
    const offsets = new Array<number>(slots.length).fill(0)
    let size = 4
    for (const { f, slot } of order) {
      const s = sizeOf(f)
      size = Math.ceil(size / s) * s
      offsets[slot] = size
      size += s
    }
    // vtable: [vtable size][table size][offset per slot], u16 each.
    const vtableSize = 4 + slots.length * 2
    this.align(2)
    const vtable = this.pos
    this.ensure(vtableSize)
    this.view.setUint16(vtable, vtableSize, true)
    this.view.setUint16(vtable + 2, size, true)
    offsets.forEach((o, i) => this.view.setUint16(vtable + 4 + i * 2, o, true))
    this.pos += vtableSize
    this.align(8)
    const at = this.pos
    this.ensure(size)
    this.buf.fill(0, at, at + size)
    this.view.setInt32(at, at - vtable, true)
    this.pos += size
    for (const { f, slot } of order) {
      if (f.t !== 'ref') this.writeInt(f, at + offsets[slot]!)
    }
    for (const { f, slot } of order) {
      if (f.t === 'ref') {
        const field = at + offsets[slot]!
        const target = this.node(f.v)
        this.view.setUint32(field, target - field, true)
      }
    }
    return at
  }
}

/** Serialises `root` as a finished flatbuffer, its length a multiple of 8. */
export function finish(root: FbNode): Uint8Array {
  const w = new Writer()
  w.ensure(4)
  w.pos = 4
  const at = w.node(root)
  w.view.setUint32(0, at, true)
  w.align(8)
  return w.buf.slice(0, w.pos)
}
