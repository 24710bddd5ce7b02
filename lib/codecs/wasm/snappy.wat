;; sluice's Snappy kernel: the raw block decoder and compressor (google/snappy
;; format_description.txt) and CRC-32C (the framing format's checksum), hand-written WebAssembly.
;; Assembled by `node scripts/build-wasm-kernels.mjs` (npm `wabt`) into gen/snappy.wasm
;; and gen/snappy.b64.ts; the framing logic stays in TypeScript
;; (lib/codecs/snappy-frame-decode.ts), which stages blocks through this module's memory
;; (lib/codecs/snappy-wasm.ts).
;;
;; Safety contract: every function checks the ranges it is given against the memory size
;; first and returns ERR_RANGE (-4) instead of trapping. The decoder reads only inside
;; [src, srcEnd + 16) and writes only inside [dst, dstEnd + 16): the 16 bytes after each
;; range are scratch ("slack") the caller reserves, so that short literals and copies
;; move 8 or 16 bytes at a time without a bounds check per byte. Copy sources are checked
;; against [dst, op). Linear memory is capped at 2 GiB (32768 pages) so that no address
;; plus a small constant can wrap around 2^32.
;;
;; Features: MVP + bulk memory (memory.copy). No SIMD, no imports.
(module
  (memory (export "memory") 1 32768)

  ;; Return codes (the same numbers as lib/codecs/snappy-block.ts).
  ;; ERR_INPUT  -1: input ends inside an element
  ;; ERR_OUTPUT -2: an element would write past dstEnd
  ;; ERR_OFFSET -3: a copy's offset is 0 or reaches before dst
  ;; ERR_RANGE  -4: a range given by the caller is not inside memory (caller bug)

  ;; CRC-32C tables: 8 x 256 entries of 4 bytes at TABLES = 1024 (crc32c_init fills
  ;; them; $crc32c's loads name the address in their offsets).
  (global $TABLES i32 (i32.const 1024))

  ;; Largest usable address + 1 minus the slack.
  (func $limit (result i32)
    (i32.sub (i32.shl (memory.size) (i32.const 16)) (i32.const 32)))

  ;; ---------------------------------------------------------------------------------
  ;; decode(src, srcEnd, dst, dstEnd) -> bytes written | ERR_*
  ;;
  ;; Decodes the elements [src, srcEnd) of a Snappy block (the preamble already read by
  ;; the caller) into [dst, dstEnd). Stops at srcEnd; the caller compares the result
  ;; with the declared length. Same results and errors as decodeBlockInto() in
  ;; lib/codecs/snappy-block.ts (checked by test/snappy.test.ts).
  (func $decode (export "decode")
    (param $ip i32) (param $srcEnd i32) (param $op i32) (param $dstEnd i32)
    (result i32)
    (local $dst i32)
    (local $tag i32)
    (local $len i32)
    (local $extra i32)
    (local $offset i32)
    (local $from i32)
    (local $stop i32)

    (if (i32.or
          (i32.or (i32.gt_u (local.get $ip) (local.get $srcEnd))
                  (i32.gt_u (local.get $srcEnd) (call $limit)))
          (i32.or (i32.gt_u (local.get $op) (local.get $dstEnd))
                  (i32.gt_u (local.get $dstEnd) (call $limit))))
      (then (return (i32.const -4))))
    (local.set $dst (local.get $op))

    (block $end
      (loop $element
        (br_if $end (i32.ge_u (local.get $ip) (local.get $srcEnd)))
        (local.set $tag (i32.load8_u (local.get $ip)))
        (if (i32.eqz (i32.and (local.get $tag) (i32.const 3)))
          (then
            ;; Literal: length - 1 in the upper six bits, or 60..63 for 1..4 more bytes.
            (local.set $len (i32.shr_u (local.get $tag) (i32.const 2)))
            (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
            (if (i32.ge_u (local.get $len) (i32.const 60))
              (then
                (local.set $extra (i32.sub (local.get $len) (i32.const 59)))
                (if (i32.gt_u (local.get $extra) (i32.sub (local.get $srcEnd) (local.get $ip)))
                  (then (return (i32.const -1))))
                ;; The 4 bytes at ip are readable (slack); keep the low `extra` bytes.
                (local.set $len
                  (i32.and (i32.load (local.get $ip))
                           (i32.shr_u (i32.const -1) (i32.shl (i32.sub (i32.const 4) (local.get $extra)) (i32.const 3)))))
                (local.set $ip (i32.add (local.get $ip) (local.get $extra)))))
            ;; len is length - 1 here: length > room  <=>  len >= room.
            (if (i32.ge_u (local.get $len) (i32.sub (local.get $dstEnd) (local.get $op)))
              (then (return (i32.const -2))))
            (if (i32.ge_u (local.get $len) (i32.sub (local.get $srcEnd) (local.get $ip)))
              (then (return (i32.const -1))))
            (local.set $len (i32.add (local.get $len) (i32.const 1)))
            (if (i32.le_u (local.get $len) (i32.const 16))
              (then
                ;; Wild copy of 16 bytes: inside the slack after both ranges.
                (i64.store (local.get $op) (i64.load (local.get $ip)))
                (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $ip))))
              (else
                (memory.copy (local.get $op) (local.get $ip) (local.get $len))))
            (local.set $op (i32.add (local.get $op) (local.get $len)))
            (local.set $ip (i32.add (local.get $ip) (local.get $len)))
            (br $element)))
        ;; Copies.
        (if (i32.eq (i32.and (local.get $tag) (i32.const 3)) (i32.const 1))
          (then
            (if (i32.gt_u (i32.const 2) (i32.sub (local.get $srcEnd) (local.get $ip)))
              (then (return (i32.const -1))))
            (local.set $len (i32.add (i32.and (i32.shr_u (local.get $tag) (i32.const 2)) (i32.const 7)) (i32.const 4)))
            (local.set $offset
              (i32.or (i32.shl (i32.shr_u (local.get $tag) (i32.const 5)) (i32.const 8))
                      (i32.load8_u offset=1 (local.get $ip))))
            (local.set $ip (i32.add (local.get $ip) (i32.const 2))))
          (else
            (local.set $len (i32.add (i32.shr_u (local.get $tag) (i32.const 2)) (i32.const 1)))
            (if (i32.eq (i32.and (local.get $tag) (i32.const 3)) (i32.const 2))
              (then
                (if (i32.gt_u (i32.const 3) (i32.sub (local.get $srcEnd) (local.get $ip)))
                  (then (return (i32.const -1))))
                (local.set $offset (i32.load16_u offset=1 (local.get $ip)))
                (local.set $ip (i32.add (local.get $ip) (i32.const 3))))
              (else
                (if (i32.gt_u (i32.const 5) (i32.sub (local.get $srcEnd) (local.get $ip)))
                  (then (return (i32.const -1))))
                (local.set $offset (i32.load offset=1 (local.get $ip)))
                (local.set $ip (i32.add (local.get $ip) (i32.const 5)))))))
        ;; offset - 1 >= op - dst (unsigned) catches offset 0 and offsets before dst.
        (if (i32.ge_u (i32.sub (local.get $offset) (i32.const 1)) (i32.sub (local.get $op) (local.get $dst)))
          (then (return (i32.const -3))))
        (if (i32.gt_u (local.get $len) (i32.sub (local.get $dstEnd) (local.get $op)))
          (then (return (i32.const -2))))
        (local.set $from (i32.sub (local.get $op) (local.get $offset)))
        (local.set $stop (i32.add (local.get $op) (local.get $len)))
        (if (i32.ge_u (local.get $offset) (i32.const 8))
          (then
            ;; 8 bytes at a time: each read ends at or before the write it feeds
            ;; (offset >= 8); at most 7 bytes land in the slack after stop.
            (loop $wide
              (i64.store (local.get $op) (i64.load (local.get $from)))
              (local.set $op (i32.add (local.get $op) (i32.const 8)))
              (local.set $from (i32.add (local.get $from) (i32.const 8)))
              (br_if $wide (i32.lt_u (local.get $op) (local.get $stop)))))
          (else
            ;; Overlapping short offsets repeat a pattern: byte by byte.
            (loop $bytes
              (i32.store8 (local.get $op) (i32.load8_u (local.get $from)))
              (local.set $op (i32.add (local.get $op) (i32.const 1)))
              (local.set $from (i32.add (local.get $from) (i32.const 1)))
              (br_if $bytes (i32.lt_u (local.get $op) (local.get $stop))))))
        (local.set $op (local.get $stop))
        (br $element)))
    (i32.sub (local.get $op) (local.get $dst)))

  ;; decode_crc(src, srcEnd, dst, dstEnd) -> as decode; when all of [dst, dstEnd) was
  ;; written, stores the CRC-32C of it at address 0 (the framing format's chunk check
  ;; without copying the output back in).
  (func (export "decode_crc") (param $ip i32) (param $srcEnd i32) (param $op i32) (param $dstEnd i32) (result i32)
    (local $n i32)
    (local.set $n (call $decode (local.get $ip) (local.get $srcEnd) (local.get $op) (local.get $dstEnd)))
    (if (i32.eq (local.get $n) (i32.sub (local.get $dstEnd) (local.get $op)))
      (then (i32.store (i32.const 0) (call $crc32c (local.get $op) (local.get $n) (i32.const 0)))))
    (local.get $n))

  ;; ---------------------------------------------------------------------------------
  ;; compress(src, srcEnd, dst, table) -> end of the block | ERR_RANGE
  ;;
  ;; Writes [src, srcEnd) as one Snappy block, preamble included, at dst, which needs
  ;; 32 + n + n/6 bytes (maxCompressedLength in snappy-block.ts) plus the slack: short
  ;; literals are moved 16 bytes at a time. `table` is 32 KiB of scratch (2^14 16-bit
  ;; positions). The same algorithm as encodeBlock() in lib/codecs/snappy-block.ts
  ;; (google/snappy's greedy search): input in fragments of 64 KiB (kBlockSize) so that
  ;; offsets fit in 16 bits, each with its own table of 2^8..2^14 entries, a 4-byte
  ;; multiplicative hash, probes that step further apart the longer nothing matched
  ;; (skip >> 5), matches extended 8 bytes at a time. Reads stay inside [src, srcEnd + 8).
  (func $compress (export "compress")
    (param $src i32) (param $srcEnd i32) (param $dst i32) (param $table i32)
    (result i32)
    (local $n i32)
    (local $op i32)
    (if (call $bad_ranges (local.get $src) (local.get $srcEnd) (local.get $dst) (local.get $table))
      (then (return (i32.const -4))))
    (local.set $n (i32.sub (local.get $srcEnd) (local.get $src)))
    ;; Preamble: n as a little-endian base-128 varint.
    (local.set $op (local.get $dst))
    (block $short
      (loop $varint
        (br_if $short (i32.lt_u (local.get $n) (i32.const 128)))
        (i32.store8 (local.get $op) (i32.or (i32.and (local.get $n) (i32.const 127)) (i32.const 128)))
        (local.set $op (i32.add (local.get $op) (i32.const 1)))
        (local.set $n (i32.shr_u (local.get $n) (i32.const 7)))
        (br $varint)))
    (i32.store8 (local.get $op) (local.get $n))
    (call $fragments (local.get $src) (local.get $srcEnd) (i32.add (local.get $op) (i32.const 1)) (local.get $table)))

  ;; fragments(src, srcEnd, dst, table) -> end | ERR_RANGE
  ;; The elements of [src, srcEnd) in 64 KiB fragments without the preamble, same ranges
  ;; as compress(). A block's fragments are independent, so a large block compresses
  ;; piece by piece (pieces a multiple of 64 KiB long) to the same bytes as one call.
  (func (export "fragments")
    (param $src i32) (param $srcEnd i32) (param $dst i32) (param $table i32)
    (result i32)
    (if (call $bad_ranges (local.get $src) (local.get $srcEnd) (local.get $dst) (local.get $table))
      (then (return (i32.const -4))))
    (call $fragments (local.get $src) (local.get $srcEnd) (local.get $dst) (local.get $table)))

  ;; Whether compress()'s ranges are not all inside memory: [src, srcEnd + 32), table's
  ;; 32 KiB, and maxCompressedLength at dst plus the slack.
  (func $bad_ranges (param $src i32) (param $srcEnd i32) (param $dst i32) (param $table i32) (result i32)
    (local $n i32)
    (if (i32.or
          (i32.or (i32.gt_u (local.get $src) (local.get $srcEnd))
                  (i32.gt_u (local.get $srcEnd) (call $limit)))
          (i32.or (i32.gt_u (local.get $table) (call $limit))
                  (i32.gt_u (i32.const 32768) (i32.sub (call $limit) (local.get $table)))))
      (then (return (i32.const 1))))
    (local.set $n (i32.sub (local.get $srcEnd) (local.get $src)))
    (if (i32.or (i32.gt_u (local.get $dst) (call $limit))
                (i32.gt_u (i32.add (i32.add (i32.const 32) (local.get $n)) (i32.div_u (local.get $n) (i32.const 6)))
                          (i32.sub (call $limit) (local.get $dst))))
      (then (return (i32.const 1))))
    (i32.const 0))

  (func $fragments
    (param $src i32) (param $srcEnd i32) (param $op i32) (param $table i32)
    (result i32)
    (local $p i32)
    (local $end i32)
    (local.set $p (local.get $src))
    (block $done
      (loop $fragments
        (br_if $done (i32.ge_u (local.get $p) (local.get $srcEnd)))
        (local.set $end
          (select (local.get $srcEnd) (i32.add (local.get $p) (i32.const 65536))
                  (i32.lt_u (i32.sub (local.get $srcEnd) (local.get $p)) (i32.const 65536))))
        (local.set $op (call $fragment (local.get $p) (local.get $end) (local.get $op) (local.get $table)))
        (local.set $p (local.get $end))
        (br $fragments)))
    (local.get $op))

  ;; The literal [from, from + len) (1 <= len <= 65536) at op; returns the end.
  (func $literal (param $op i32) (param $from i32) (param $len i32) (result i32)
    (local $n i32)
    (local.set $n (i32.sub (local.get $len) (i32.const 1)))
    (if (i32.lt_u (local.get $n) (i32.const 60))
      (then
        (i32.store8 (local.get $op) (i32.shl (local.get $n) (i32.const 2)))
        (local.set $op (i32.add (local.get $op) (i32.const 1))))
      (else
        (if (i32.lt_u (local.get $n) (i32.const 256))
          (then
            (i32.store8 (local.get $op) (i32.const 240))
            (i32.store8 offset=1 (local.get $op) (local.get $n))
            (local.set $op (i32.add (local.get $op) (i32.const 2))))
          (else
            (i32.store8 (local.get $op) (i32.const 244))
            (i32.store16 offset=1 (local.get $op) (local.get $n))
            (local.set $op (i32.add (local.get $op) (i32.const 3)))))))
    (if (i32.le_u (local.get $len) (i32.const 16))
      (then
        ;; 16 bytes: the reads end inside the input's slack, the writes inside dst's.
        (i64.store (local.get $op) (i64.load (local.get $from)))
        (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $from))))
      (else (memory.copy (local.get $op) (local.get $from) (local.get $len))))
    (i32.add (local.get $op) (local.get $len)))

  ;; A copy of len (>= 4) bytes from offset (1..65535) back at op; returns the end.
  (func $copy (param $op i32) (param $offset i32) (param $len i32) (result i32)
    (block $fits
      (loop $long
        (br_if $fits (i32.lt_u (local.get $len) (i32.const 68)))
        (i32.store8 (local.get $op) (i32.const 254))
        (i32.store16 offset=1 (local.get $op) (local.get $offset))
        (local.set $op (i32.add (local.get $op) (i32.const 3)))
        (local.set $len (i32.sub (local.get $len) (i32.const 64)))
        (br $long)))
    (if (i32.gt_u (local.get $len) (i32.const 64))
      (then
        (i32.store8 (local.get $op) (i32.const 238))
        (i32.store16 offset=1 (local.get $op) (local.get $offset))
        (local.set $op (i32.add (local.get $op) (i32.const 3)))
        (local.set $len (i32.sub (local.get $len) (i32.const 60)))))
    (if (i32.and (i32.lt_u (local.get $len) (i32.const 12)) (i32.lt_u (local.get $offset) (i32.const 2048)))
      (then
        (i32.store8 (local.get $op)
          (i32.or (i32.or (i32.const 1) (i32.shl (i32.sub (local.get $len) (i32.const 4)) (i32.const 2)))
                  (i32.shl (i32.shr_u (local.get $offset) (i32.const 8)) (i32.const 5))))
        (i32.store8 offset=1 (local.get $op) (local.get $offset))
        (return (i32.add (local.get $op) (i32.const 2)))))
    (i32.store8 (local.get $op) (i32.or (i32.const 2) (i32.shl (i32.sub (local.get $len) (i32.const 1)) (i32.const 2))))
    (i32.store16 offset=1 (local.get $op) (local.get $offset))
    (i32.add (local.get $op) (i32.const 3)))

  ;; One fragment [p, end) (<= 64 KiB) at op; returns the end.
  (func $fragment (param $p i32) (param $end i32) (param $op i32) (param $table i32) (result i32)
    (local $nextEmit i32)
    (local $len i32)
    (local $hashLog i32)
    (local $shift i32)
    (local $ipLimit i32)
    (local $ip i32)
    (local $nextIp i32)
    (local $nextHash i32)
    (local $hash i32)
    (local $skip i32)
    (local $candidate i32)
    (local $slot i32)
    (local $a i32)
    (local $b i32)
    (local $x i64)
    (local.set $nextEmit (local.get $p))
    (local.set $len (i32.sub (local.get $end) (local.get $p)))
    (if (i32.ge_u (local.get $len) (i32.const 15))
      (then
        (local.set $hashLog (i32.const 8))
        (block $sized
          (loop $grow
            (br_if $sized (i32.ge_u (local.get $hashLog) (i32.const 14)))
            (br_if $sized (i32.ge_u (i32.shl (i32.const 1) (local.get $hashLog)) (local.get $len)))
            (local.set $hashLog (i32.add (local.get $hashLog) (i32.const 1)))
            (br $grow)))
        (local.set $shift (i32.sub (i32.const 32) (local.get $hashLog)))
        (memory.fill (local.get $table) (i32.const 0) (i32.shl (i32.const 2) (local.get $hashLog)))
        (local.set $ipLimit (i32.sub (local.get $end) (i32.const 15)))
        (local.set $ip (i32.add (local.get $p) (i32.const 1)))
        (local.set $nextHash
          (i32.shr_u (i32.mul (i32.load (local.get $ip)) (i32.const 0x1e35a7bd)) (local.get $shift)))
        (block $out
          (loop $outer
            ;; Probe for a 4-byte match, further apart the longer none is found.
            (local.set $skip (i32.const 32))
            (local.set $nextIp (local.get $ip))
            (loop $probe
              (local.set $ip (local.get $nextIp))
              (local.set $hash (local.get $nextHash))
              (local.set $nextIp (i32.add (local.get $ip) (i32.shr_u (local.get $skip) (i32.const 5))))
              (local.set $skip (i32.add (local.get $skip) (i32.const 1)))
              (br_if $out (i32.gt_u (local.get $nextIp) (local.get $ipLimit)))
              (local.set $nextHash
                (i32.shr_u (i32.mul (i32.load (local.get $nextIp)) (i32.const 0x1e35a7bd)) (local.get $shift)))
              (local.set $slot (i32.add (local.get $table) (i32.shl (local.get $hash) (i32.const 1))))
              (local.set $candidate (i32.add (local.get $p) (i32.load16_u (local.get $slot))))
              (i32.store16 (local.get $slot) (i32.sub (local.get $ip) (local.get $p)))
              (br_if $probe (i32.ne (i32.load (local.get $ip)) (i32.load (local.get $candidate)))))
            (local.set $op (call $literal (local.get $op) (local.get $nextEmit) (i32.sub (local.get $ip) (local.get $nextEmit))))
            ;; Copies while the position after each one matches too.
            (loop $copies
              (local.set $a (i32.add (local.get $candidate) (i32.const 4)))
              (local.set $b (i32.add (local.get $ip) (i32.const 4)))
              (block $matched
                (block $tail
                  (loop $wide
                    (br_if $tail (i32.gt_u (local.get $b) (i32.sub (local.get $end) (i32.const 8))))
                    (local.set $x (i64.xor (i64.load (local.get $a)) (i64.load (local.get $b))))
                    (if (i64.ne (local.get $x) (i64.const 0))
                      (then
                        (local.set $b (i32.add (local.get $b)
                                               (i32.shr_u (i32.wrap_i64 (i64.ctz (local.get $x))) (i32.const 3))))
                        (br $matched)))
                    (local.set $a (i32.add (local.get $a) (i32.const 8)))
                    (local.set $b (i32.add (local.get $b) (i32.const 8)))
                    (br $wide)))
                (loop $bytes
                  (br_if $matched (i32.ge_u (local.get $b) (local.get $end)))
                  (br_if $matched (i32.ne (i32.load8_u (local.get $a)) (i32.load8_u (local.get $b))))
                  (local.set $a (i32.add (local.get $a) (i32.const 1)))
                  (local.set $b (i32.add (local.get $b) (i32.const 1)))
                  (br $bytes)))
              (local.set $op (call $copy (local.get $op) (i32.sub (local.get $ip) (local.get $candidate))
                                         (i32.sub (local.get $b) (local.get $ip))))
              (local.set $ip (local.get $b))
              (local.set $nextEmit (local.get $ip))
              (br_if $out (i32.ge_u (local.get $ip) (local.get $ipLimit)))
              (i32.store16
                (i32.add (local.get $table)
                         (i32.shl (i32.shr_u (i32.mul (i32.load (i32.sub (local.get $ip) (i32.const 1))) (i32.const 0x1e35a7bd))
                                             (local.get $shift))
                                  (i32.const 1)))
                (i32.sub (i32.sub (local.get $ip) (i32.const 1)) (local.get $p)))
              (local.set $slot
                (i32.add (local.get $table)
                         (i32.shl (i32.shr_u (i32.mul (i32.load (local.get $ip)) (i32.const 0x1e35a7bd)) (local.get $shift))
                                  (i32.const 1))))
              (local.set $candidate (i32.add (local.get $p) (i32.load16_u (local.get $slot))))
              (i32.store16 (local.get $slot) (i32.sub (local.get $ip) (local.get $p)))
              (br_if $copies (i32.eq (i32.load (local.get $ip)) (i32.load (local.get $candidate)))))
            (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
            (local.set $nextHash
              (i32.shr_u (i32.mul (i32.load (local.get $ip)) (i32.const 0x1e35a7bd)) (local.get $shift)))
            (br $outer)))))
    (if (i32.lt_u (local.get $nextEmit) (local.get $end))
      (then (local.set $op (call $literal (local.get $op) (local.get $nextEmit) (i32.sub (local.get $end) (local.get $nextEmit))))))
    (local.get $op))

  ;; ---------------------------------------------------------------------------------
  ;; CRC-32C (Castagnoli, reflected 0x82F63B78), slicing by 8 as lib/codecs/crc32c.ts.

  ;; crc32c_init(): fills the 8 tables at TABLES. Call once after instantiation.
  (func $crc32c_init (export "crc32c_init")
    (local $n i32) (local $c i32) (local $k i32)
    (local.set $n (i32.const 0))
    (loop $entries
      (local.set $c (local.get $n))
      (local.set $k (i32.const 0))
      (loop $bits
        (local.set $c
          (i32.xor (i32.shr_u (local.get $c) (i32.const 1))
                   (i32.and (i32.const 0x82f63b78) (i32.sub (i32.const 0) (i32.and (local.get $c) (i32.const 1))))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br_if $bits (i32.lt_u (local.get $k) (i32.const 8))))
      (i32.store (i32.add (global.get $TABLES) (i32.shl (local.get $n) (i32.const 2))) (local.get $c))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br_if $entries (i32.lt_u (local.get $n) (i32.const 256))))
    ;; Table k: the contribution one byte further than table k - 1.
    (local.set $k (i32.const 1))
    (loop $tables
      (local.set $n (i32.const 0))
      (loop $entries2
        (local.set $c (i32.load (i32.add (global.get $TABLES)
                                         (i32.shl (i32.add (i32.shl (i32.sub (local.get $k) (i32.const 1)) (i32.const 8)) (local.get $n)) (i32.const 2)))))
        (local.set $c
          (i32.xor (i32.load (i32.add (global.get $TABLES) (i32.shl (i32.and (local.get $c) (i32.const 0xff)) (i32.const 2))))
                   (i32.shr_u (local.get $c) (i32.const 8))))
        (i32.store (i32.add (global.get $TABLES)
                            (i32.shl (i32.add (i32.shl (local.get $k) (i32.const 8)) (local.get $n)) (i32.const 2)))
                   (local.get $c))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br_if $entries2 (i32.lt_u (local.get $n) (i32.const 256))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $tables (i32.lt_u (local.get $k) (i32.const 8)))))

  ;; crc32c(p, length, crc) -> CRC-32C of [p, p + length) continuing from crc, or 0
  ;; for a range outside memory (callers check ranges first). Table k's entry for byte
  ;; b is at TABLES + 1024 k + 4 b: the loads below carry TABLES + 1024 k as offset.
  (func $crc32c (export "crc32c") (param $p i32) (param $length i32) (param $crc i32) (result i32)
    (local $c i32) (local $a i32) (local $end i32) (local $end8 i32)
    (if (i32.or (i32.gt_u (local.get $p) (call $limit))
                (i32.gt_u (local.get $length) (i32.sub (call $limit) (local.get $p))))
      (then (return (i32.const 0))))
    (local.set $c (i32.xor (local.get $crc) (i32.const -1)))
    (local.set $end (i32.add (local.get $p) (local.get $length)))
    (local.set $end8 (i32.sub (local.get $end) (i32.const 7)))
    (block $tail
      (loop $eight
        (br_if $tail (i32.ge_s (local.get $p) (local.get $end8)))
        (local.set $a (i32.xor (local.get $c) (i32.load (local.get $p))))
        (local.set $c
          (i32.xor
            (i32.xor
              (i32.xor (i32.load offset=8192 (i32.shl (i32.and (local.get $a) (i32.const 0xff)) (i32.const 2)))
                       (i32.load offset=7168 (i32.shl (i32.and (i32.shr_u (local.get $a) (i32.const 8)) (i32.const 0xff)) (i32.const 2))))
              (i32.xor (i32.load offset=6144 (i32.shl (i32.and (i32.shr_u (local.get $a) (i32.const 16)) (i32.const 0xff)) (i32.const 2)))
                       (i32.load offset=5120 (i32.shl (i32.shr_u (local.get $a) (i32.const 24)) (i32.const 2)))))
            (i32.xor
              (i32.xor (i32.load offset=4096 (i32.shl (i32.load8_u offset=4 (local.get $p)) (i32.const 2)))
                       (i32.load offset=3072 (i32.shl (i32.load8_u offset=5 (local.get $p)) (i32.const 2))))
              (i32.xor (i32.load offset=2048 (i32.shl (i32.load8_u offset=6 (local.get $p)) (i32.const 2)))
                       (i32.load offset=1024 (i32.shl (i32.load8_u offset=7 (local.get $p)) (i32.const 2)))))))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $eight)))
    (block $done
      (loop $bytes
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c
          (i32.xor (i32.load offset=1024 (i32.shl (i32.and (i32.xor (local.get $c) (i32.load8_u (local.get $p))) (i32.const 0xff)) (i32.const 2)))
                   (i32.shr_u (local.get $c) (i32.const 8))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $bytes)))
    (i32.xor (local.get $c) (i32.const -1)))
)
