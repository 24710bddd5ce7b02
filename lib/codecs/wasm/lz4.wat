;; sluice's LZ4 kernel: the raw block decoder and xxHash32, hand-written WebAssembly.
;; Assembled by `node scripts/build-lz4-wasm.mjs` (npm `wabt`) into gen/lz4.wasm and
;; gen/lz4.b64.ts; the frame logic stays in TypeScript (lib/codecs/lz4.ts), which stages
;; blocks through this module's memory (lib/codecs/lz4-wasm.ts).
;;
;; Safety contract: every function checks the ranges it is given against the memory size
;; first and returns ERR_RANGE (-4) instead of trapping; the decoder reads only inside
;; [src, srcEnd + 32) and writes only inside [dst, dstEnd + 32): the 32 bytes after each
;; range are scratch ("slack") that the caller reserves, so short literal and match runs
;; are copied 8 or 16 bytes at a time without a bounds check per byte (the reference
;; decoder's "wild copy", done here into slack instead of stopping 12 bytes early).
;; Match sources are checked against [dictStart, op). Hostile lengths saturate instead of
;; wrapping. Linear memory is capped at 2 GiB (32768 pages) so that no address plus a
;; small constant can wrap around 2^32.
;;
;; Features: MVP + bulk memory (memory.copy / memory.fill: Node >= 12.5, Chrome 75,
;; Firefox 79, Safari 15, Deno, Bun, workerd). No SIMD, no imports.
(module
  (memory (export "memory") 1 32768)

  ;; Return codes (the same numbers as lib/codecs/lz4-block.ts).
  ;; ERR_INPUT  -1: input ends inside a sequence or right after a match
  ;; ERR_OUTPUT -2: output would pass dstEnd
  ;; ERR_OFFSET -3: match offset 0 or reaching before dictStart
  ;; ERR_RANGE  -4: a range given by the caller is not inside memory (caller bug)

  ;; Bytes the caller must keep free after srcEnd and dstEnd (see the contract above).
  ;; Wild copies write at most 16 bytes past dstEnd and read at most 16 past srcEnd;
  ;; 32 leaves margin.

  ;; Largest usable address + 1 minus the slack, or 0 when memory is smaller than that.
  (func $limit (result i32)
    (i32.sub (i32.shl (memory.size) (i32.const 16)) (i32.const 32)))

  ;; ---------------------------------------------------------------------------------
  ;; decode(src, srcEnd, dst, dstEnd, dictStart) -> bytes written | ERR_*
  ;;
  ;; Decodes the LZ4 block [src, srcEnd) (lz4 doc/lz4_Block_format.md) into
  ;; [dst, dstEnd). Matches may reach back into [dictStart, dst): the history of linked
  ;; blocks, laid out right before dst by the caller. Same results and error codes as
  ;; decodeBlock() in lib/codecs/lz4-block.ts (checked by test/lz4.test.ts).
  (func $decode (export "decode")
    (param $ip i32) (param $srcEnd i32) (param $op i32) (param $dstEnd i32) (param $dictStart i32)
    (result i32)
    (local $dstStart i32)
    (local $token i32)
    (local $len i32)
    (local $byte i32)
    (local $offset i32)
    (local $from i32)
    (local $end i32)
    (local $left i32)
    (local $step i32)
    (local $srcFast i32)
    (local $dstFast i32)

    ;; Ranges: ip <= srcEnd <= limit, dictStart <= op <= dstEnd <= limit.
    (if (i32.or
          (i32.or (i32.gt_u (local.get $ip) (local.get $srcEnd))
                  (i32.gt_u (local.get $srcEnd) (call $limit)))
          (i32.or (i32.or (i32.gt_u (local.get $dictStart) (local.get $op))
                          (i32.gt_u (local.get $op) (local.get $dstEnd)))
                  (i32.gt_u (local.get $dstEnd) (call $limit))))
      (then (return (i32.const -4))))
    (local.set $dstStart (local.get $op))
    ;; An empty block is invalid: even empty content is one zero token ("End of block
    ;; conditions"; the reference decoder rejects srcSize 0 too).
    (if (i32.ge_u (local.get $ip) (local.get $srcEnd)) (then (return (i32.const -1))))
    ;; Fast region: a sequence starting before these (signed: they may be negative; all
    ;; addresses are < 2^31) with a short literal run (<= 14) and a short match (<= 18)
    ;; fits in both ranges, so it needs no length checks.
    (local.set $srcFast (i32.sub (local.get $srcEnd) (i32.const 32)))
    (local.set $dstFast (i32.sub (local.get $dstEnd) (i32.const 32)))

    (loop $sequence
     ;; Invariant here: ip < srcEnd.
     (block $matchStage
      (block $literalStage
        (br_if $literalStage
          (i32.or (i32.ge_s (local.get $ip) (local.get $srcFast)) (i32.ge_s (local.get $op) (local.get $dstFast))))
        (local.set $token (i32.load8_u (local.get $ip)))
        (br_if $literalStage (i32.ge_u (local.get $token) (i32.const 0xf0)))
        ;; Literals: 16 bytes copied, token >> 4 (<= 14) kept. Reads < srcEnd, writes
        ;; < dstEnd.
        (i64.store (local.get $op) (i64.load offset=1 (local.get $ip)))
        (i64.store offset=8 (local.get $op) (i64.load offset=9 (local.get $ip)))
        (local.set $len (i32.shr_u (local.get $token) (i32.const 4)))
        (local.set $op (i32.add (local.get $op) (local.get $len)))
        (local.set $ip (i32.add (i32.add (local.get $ip) (local.get $len)) (i32.const 1)))
        ;; The offset: ip <= old ip + 15, so both bytes are before srcEnd.
        (local.set $offset (i32.load16_u (local.get $ip)))
        (local.set $ip (i32.add (local.get $ip) (i32.const 2)))
        ;; A short match with offset >= 8 that stays after dictStart: 24 bytes copied
        ;; 8 at a time (right for overlaps since offset >= 8); writes <= dstEnd + 6.
        (br_if $matchStage
          (i32.or
            (i32.or (i32.eq (i32.and (local.get $token) (i32.const 15)) (i32.const 15))
                    (i32.lt_u (local.get $offset) (i32.const 8)))
            (i32.gt_u (local.get $offset) (i32.sub (local.get $op) (local.get $dictStart)))))
        (local.set $from (i32.sub (local.get $op) (local.get $offset)))
        (i64.store (local.get $op) (i64.load (local.get $from)))
        (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $from)))
        (i64.store offset=16 (local.get $op) (i64.load offset=16 (local.get $from)))
        (local.set $op (i32.add (i32.add (local.get $op) (i32.and (local.get $token) (i32.const 15))) (i32.const 4)))
        (br $sequence))

      (local.set $token (i32.load8_u (local.get $ip)))
      (local.set $ip (i32.add (local.get $ip) (i32.const 1)))

      ;; ---- literals
      (local.set $len (i32.shr_u (local.get $token) (i32.const 4)))
      (if (i32.eq (local.get $len) (i32.const 15))
        (then
          ;; Length bytes: 15 + 255 + ... + last (< 255). Saturates at 2^31 - 1 (any
          ;; real range is shorter, so the checks below fail the same way).
          (loop $more
            (if (i32.ge_u (local.get $ip) (local.get $srcEnd)) (then (return (i32.const -1))))
            (local.set $byte (i32.load8_u (local.get $ip)))
            (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
            (local.set $len (i32.add (local.get $len) (local.get $byte)))
            (if (i32.gt_u (local.get $len) (i32.const 0x7fffffff))
              (then (local.set $len (i32.const 0x7fffffff))))
            (br_if $more (i32.eq (local.get $byte) (i32.const 255))))))
      (if (i32.gt_u (local.get $len) (i32.sub (local.get $srcEnd) (local.get $ip)))
        (then (return (i32.const -1))))
      (if (i32.gt_u (local.get $len) (i32.sub (local.get $dstEnd) (local.get $op)))
        (then (return (i32.const -2))))
      (if (i32.le_u (local.get $len) (i32.const 16))
        (then
          ;; Wild copy of 16 bytes (reads <= srcEnd + 16, writes <= dstEnd + 16).
          (i64.store (local.get $op) (i64.load (local.get $ip)))
          (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $ip))))
        (else
          (if (i32.le_u (local.get $len) (i32.const 64))
            (then
              ;; 16 bytes at a time (reads <= srcEnd + 15, writes <= dstEnd + 15): below
              ;; this length, cheaper than memory.copy's call (measured).
              (local.set $from (local.get $ip))
              (local.set $end (i32.add (local.get $op) (local.get $len)))
              (loop $copy
                (i64.store (local.get $op) (i64.load (local.get $from)))
                (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $from)))
                (local.set $op (i32.add (local.get $op) (i32.const 16)))
                (local.set $from (i32.add (local.get $from) (i32.const 16)))
                (br_if $copy (i32.lt_u (local.get $op) (local.get $end))))
              (local.set $op (i32.sub (local.get $end) (local.get $len))))
            (else (memory.copy (local.get $op) (local.get $ip) (local.get $len))))))
      (local.set $op (i32.add (local.get $op) (local.get $len)))
      (local.set $ip (i32.add (local.get $ip) (local.get $len)))

      ;; ---- end of block, or the 2-byte offset
      (local.set $left (i32.sub (local.get $srcEnd) (local.get $ip)))
      (if (i32.lt_u (local.get $left) (i32.const 2))
        (then
          ;; The last sequence has literals only: the block ends here, exactly.
          (if (i32.eqz (local.get $left))
            (then (return (i32.sub (local.get $op) (local.get $dstStart)))))
          (return (i32.const -1))))
      (local.set $offset (i32.load16_u (local.get $ip)))
      (local.set $ip (i32.add (local.get $ip) (i32.const 2))))

      ;; ---- match (token, offset read, ip after the offset); length: nibble + 4 ("minmatch")
      (local.set $len (i32.and (local.get $token) (i32.const 15)))
      (if (i32.eq (local.get $len) (i32.const 15))
        (then
          (loop $more
            (if (i32.ge_u (local.get $ip) (local.get $srcEnd)) (then (return (i32.const -1))))
            (local.set $byte (i32.load8_u (local.get $ip)))
            (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
            (local.set $len (i32.add (local.get $len) (local.get $byte)))
            (if (i32.gt_u (local.get $len) (i32.const 0x7ffffff0))
              (then (local.set $len (i32.const 0x7ffffff0))))
            (br_if $more (i32.eq (local.get $byte) (i32.const 255))))))
      (local.set $len (i32.add (local.get $len) (i32.const 4)))
      (if (i32.gt_u (local.get $len) (i32.sub (local.get $dstEnd) (local.get $op)))
        (then (return (i32.const -2))))
      ;; offset 0 is invalid ("0 is an invalid offset value"); offset - 1 wraps to
      ;; 0xffffffff then. An offset may reach back at most to dictStart.
      (if (i32.ge_u (i32.sub (local.get $offset) (i32.const 1)) (i32.sub (local.get $op) (local.get $dictStart)))
        (then (return (i32.const -3))))
      (local.set $from (i32.sub (local.get $op) (local.get $offset)))
      (local.set $end (i32.add (local.get $op) (local.get $len)))

      (if (i32.ge_u (local.get $offset) (i32.const 8))
        (then
          (if (i32.le_u (local.get $len) (i32.const 16))
            (then
              ;; offset >= 8: each 8-byte read covers only bytes written before it, so
              ;; this is right for overlapping matches too. Writes <= dstEnd + 12.
              (i64.store (local.get $op) (i64.load (local.get $from)))
              (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $from))))
            (else
              (if (i32.and (i32.ge_u (local.get $offset) (local.get $len)) (i32.gt_u (local.get $len) (i32.const 64)))
                (then (memory.copy (local.get $op) (local.get $from) (local.get $len)))
                (else
                  ;; Shorter or overlapping with period >= 8: 8 bytes at a time.
                  (loop $copy
                    (i64.store (local.get $op) (i64.load (local.get $from)))
                    (local.set $op (i32.add (local.get $op) (i32.const 8)))
                    (local.set $from (i32.add (local.get $from) (i32.const 8)))
                    (br_if $copy (i32.lt_u (local.get $op) (local.get $end)))))))))
        (else
          (if (i32.and (i32.eq (local.get $offset) (i32.const 1)) (i32.ge_u (local.get $len) (i32.const 32)))
            (then
              ;; A run of one byte.
              (memory.fill (local.get $op) (i32.load8_u (local.get $from)) (local.get $len)))
            (else
              ;; Period 1..7: the first 8 bytes one at a time, then 8 at a time from a
              ;; distance that is a multiple of the period and >= 8 (8 8 9 8 10 12 14 for
              ;; periods 1..7), inside the 8 + period bytes of pattern already written.
              ;; Writes <= end + 7 <= dstEnd + 7.
              (i32.store8 (local.get $op) (i32.load8_u (local.get $from)))
              (i32.store8 offset=1 (local.get $op) (i32.load8_u offset=1 (local.get $from)))
              (i32.store8 offset=2 (local.get $op) (i32.load8_u offset=2 (local.get $from)))
              (i32.store8 offset=3 (local.get $op) (i32.load8_u offset=3 (local.get $from)))
              (i32.store8 offset=4 (local.get $op) (i32.load8_u offset=4 (local.get $from)))
              (i32.store8 offset=5 (local.get $op) (i32.load8_u offset=5 (local.get $from)))
              (i32.store8 offset=6 (local.get $op) (i32.load8_u offset=6 (local.get $from)))
              (i32.store8 offset=7 (local.get $op) (i32.load8_u offset=7 (local.get $from)))
              (if (i32.gt_u (local.get $len) (i32.const 8))
                (then
                  (local.set $step
                    (select
                      (i32.shl (local.get $offset) (i32.const 1))
                      (select (i32.const 9) (i32.const 8) (i32.eq (local.get $offset) (i32.const 3)))
                      (i32.ge_u (local.get $offset) (i32.const 4))))
                  (local.set $op (i32.add (local.get $op) (i32.const 8)))
                  (local.set $from (i32.sub (local.get $op) (local.get $step)))
                  (loop $copy
                    (i64.store (local.get $op) (i64.load (local.get $from)))
                    (local.set $op (i32.add (local.get $op) (i32.const 8)))
                    (local.set $from (i32.add (local.get $from) (i32.const 8)))
                    (br_if $copy (i32.lt_u (local.get $op) (local.get $end))))))))))
      (local.set $op (local.get $end))
      ;; A block must end with literals ("End of block conditions"): more input needed.
      (br_if $sequence (i32.lt_u (local.get $ip) (local.get $srcEnd))))
    (i32.const -1))

  ;; ---------------------------------------------------------------------------------
  ;; xxHash32 (Cyan4973/xxHash doc/xxhash_spec.md), the checksum of the LZ4 frame format.
  ;;
  ;; Streaming state, 48 bytes at a caller-chosen address (so the caller can save and
  ;; restore it between streams that share this instance):
  ;;   0  v1, 4 v2, 8 v3, 12 v4   lane accumulators (spec "Step 1")
  ;;   16 total (i64)             bytes hashed so far
  ;;   24 seed
  ;;   28 stripe length           bytes of a partial 16-byte stripe in 32..47
  ;;   32..47 stripe

  ;; Tail (< 16 bytes at [p, end)) and avalanche (spec "Step 5" and "Step 6").
  (func $finish (param $acc i32) (param $p i32) (param $end i32) (result i32)
    (block $done4
      (loop $four
        (br_if $done4 (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $end)))
        (local.set $acc
          (i32.mul
            (i32.rotl (i32.add (local.get $acc) (i32.mul (i32.load (local.get $p)) (i32.const 0xc2b2ae3d))) (i32.const 17))
            (i32.const 0x27d4eb2f)))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $four)))
    (block $done1
      (loop $one
        (br_if $done1 (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $acc
          (i32.mul
            (i32.rotl (i32.add (local.get $acc) (i32.mul (i32.load8_u (local.get $p)) (i32.const 0x165667b1))) (i32.const 11))
            (i32.const 0x9e3779b1)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $one)))
    (local.set $acc (i32.xor (local.get $acc) (i32.shr_u (local.get $acc) (i32.const 15))))
    (local.set $acc (i32.mul (local.get $acc) (i32.const 0x85ebca77)))
    (local.set $acc (i32.xor (local.get $acc) (i32.shr_u (local.get $acc) (i32.const 13))))
    (local.set $acc (i32.mul (local.get $acc) (i32.const 0xc2b2ae3d)))
    (i32.xor (local.get $acc) (i32.shr_u (local.get $acc) (i32.const 16))))

  ;; The four lanes (spec "Step 2": rotl(v + lane * PRIME2, 13) * PRIME1) over whole stripes of [p, end) from the state at $s; returns the
  ;; address after the last whole stripe.
  (func $stripes (param $s i32) (param $p i32) (param $end i32) (result i32)
    (local $v1 i32) (local $v2 i32) (local $v3 i32) (local $v4 i32) (local $last i32)
    (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 16))
      (then (return (local.get $p))))
    (local.set $last (i32.sub (local.get $end) (i32.const 16)))
    (local.set $v1 (i32.load offset=0 (local.get $s)))
    (local.set $v2 (i32.load offset=4 (local.get $s)))
    (local.set $v3 (i32.load offset=8 (local.get $s)))
    (local.set $v4 (i32.load offset=12 (local.get $s)))
    (loop $stripe
      (local.set $v1 (i32.mul (i32.rotl (i32.add (local.get $v1) (i32.mul (i32.load offset=0 (local.get $p)) (i32.const 0x85ebca77))) (i32.const 13)) (i32.const 0x9e3779b1)))
      (local.set $v2 (i32.mul (i32.rotl (i32.add (local.get $v2) (i32.mul (i32.load offset=4 (local.get $p)) (i32.const 0x85ebca77))) (i32.const 13)) (i32.const 0x9e3779b1)))
      (local.set $v3 (i32.mul (i32.rotl (i32.add (local.get $v3) (i32.mul (i32.load offset=8 (local.get $p)) (i32.const 0x85ebca77))) (i32.const 13)) (i32.const 0x9e3779b1)))
      (local.set $v4 (i32.mul (i32.rotl (i32.add (local.get $v4) (i32.mul (i32.load offset=12 (local.get $p)) (i32.const 0x85ebca77))) (i32.const 13)) (i32.const 0x9e3779b1)))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br_if $stripe (i32.le_u (local.get $p) (local.get $last))))
    (i32.store offset=0 (local.get $s) (local.get $v1))
    (i32.store offset=4 (local.get $s) (local.get $v2))
    (i32.store offset=8 (local.get $s) (local.get $v3))
    (i32.store offset=12 (local.get $s) (local.get $v4))
    (local.get $p))

  ;; True when [p, p + len) is not inside memory (the slack is not needed here).
  (func $outside (param $p i32) (param $len i32) (result i32)
    (local $size i32)
    (local.set $size (i32.shl (memory.size) (i32.const 16)))
    (i32.or (i32.gt_u (local.get $p) (local.get $size))
            (i32.gt_u (local.get $len) (i32.sub (local.get $size) (local.get $p)))))

  ;; xxh32_reset(state, seed) -> 0 | ERR_RANGE
  (func (export "xxh32_reset") (param $s i32) (param $seed i32) (result i32)
    (if (call $outside (local.get $s) (i32.const 48)) (then (return (i32.const -4))))
    (i32.store offset=0 (local.get $s) (i32.add (local.get $seed) (i32.const 0x24234428))) ;; PRIME1 + PRIME2 mod 2^32
    (i32.store offset=4 (local.get $s) (i32.add (local.get $seed) (i32.const 0x85ebca77)))
    (i32.store offset=8 (local.get $s) (local.get $seed))
    (i32.store offset=12 (local.get $s) (i32.sub (local.get $seed) (i32.const 0x9e3779b1)))
    (i64.store offset=16 (local.get $s) (i64.const 0))
    (i32.store offset=24 (local.get $s) (local.get $seed))
    (i32.store offset=28 (local.get $s) (i32.const 0))
    (i32.const 0))

  ;; xxh32_update(state, p, len) -> 0 | ERR_RANGE: hashes [p, p + len) into the state.
  (func (export "xxh32_update") (param $s i32) (param $p i32) (param $len i32) (result i32)
    (local $end i32) (local $fill i32) (local $take i32)
    (if (i32.or (call $outside (local.get $s) (i32.const 48)) (call $outside (local.get $p) (local.get $len)))
      (then (return (i32.const -4))))
    ;; A state outside [0, 28] stripe length was not made by xxh32_reset: refuse it
    ;; rather than copy to a wild address.
    (local.set $fill (i32.load offset=28 (local.get $s)))
    (if (i32.gt_u (local.get $fill) (i32.const 15)) (then (return (i32.const -4))))
    (i64.store offset=16 (local.get $s)
      (i64.add (i64.load offset=16 (local.get $s)) (i64.extend_i32_u (local.get $len))))
    (local.set $end (i32.add (local.get $p) (local.get $len)))
    (if (local.get $fill)
      (then
        ;; Complete the partial stripe first.
        (local.set $take (i32.sub (i32.const 16) (local.get $fill)))
        (if (i32.gt_u (local.get $take) (local.get $len)) (then (local.set $take (local.get $len))))
        (memory.copy (i32.add (i32.add (local.get $s) (i32.const 32)) (local.get $fill)) (local.get $p) (local.get $take))
        (local.set $fill (i32.add (local.get $fill) (local.get $take)))
        (local.set $p (i32.add (local.get $p) (local.get $take)))
        (if (i32.lt_u (local.get $fill) (i32.const 16))
          (then
            (i32.store offset=28 (local.get $s) (local.get $fill))
            (return (i32.const 0))))
        (drop (call $stripes (local.get $s) (i32.add (local.get $s) (i32.const 32)) (i32.add (local.get $s) (i32.const 48))))))
    (local.set $p (call $stripes (local.get $s) (local.get $p) (local.get $end)))
    ;; Fewer than 16 bytes remain: keep them for the next update or the digest.
    (local.set $fill (i32.sub (local.get $end) (local.get $p)))
    (memory.copy (i32.add (local.get $s) (i32.const 32)) (local.get $p) (local.get $fill))
    (i32.store offset=28 (local.get $s) (local.get $fill))
    (i32.const 0))

  ;; xxh32_digest(state) -> hash (as i32; 0 with a bad state address)
  (func (export "xxh32_digest") (param $s i32) (result i32)
    (local $acc i32) (local $fill i32)
    (if (call $outside (local.get $s) (i32.const 48)) (then (return (i32.const 0))))
    (local.set $fill (i32.and (i32.load offset=28 (local.get $s)) (i32.const 15)))
    (if (i64.ge_u (i64.load offset=16 (local.get $s)) (i64.const 16))
      (then
        (local.set $acc
          (i32.add
            (i32.add (i32.rotl (i32.load offset=0 (local.get $s)) (i32.const 1))
                     (i32.rotl (i32.load offset=4 (local.get $s)) (i32.const 7)))
            (i32.add (i32.rotl (i32.load offset=8 (local.get $s)) (i32.const 12))
                     (i32.rotl (i32.load offset=12 (local.get $s)) (i32.const 18))))))
      (else
        (local.set $acc (i32.add (i32.load offset=24 (local.get $s)) (i32.const 0x165667b1)))))
    ;; The spec adds the total length modulo 2^32.
    (local.set $acc (i32.add (local.get $acc) (i32.wrap_i64 (i64.load offset=16 (local.get $s)))))
    (call $finish (local.get $acc) (i32.add (local.get $s) (i32.const 32))
      (i32.add (i32.add (local.get $s) (i32.const 32)) (local.get $fill))))

  ;; xxh32(p, len, seed) -> hash of [p, p + len) (0 with a bad range): one-shot, for
  ;; block checksums; the lanes stay in locals.
  (func (export "xxh32") (param $p i32) (param $len i32) (param $seed i32) (result i32)
    (local $v1 i32) (local $v2 i32) (local $v3 i32) (local $v4 i32) (local $end i32) (local $last i32) (local $acc i32)
    (if (call $outside (local.get $p) (local.get $len)) (then (return (i32.const 0))))
    (local.set $end (i32.add (local.get $p) (local.get $len)))
    (if (i32.ge_u (local.get $len) (i32.const 16))
      (then
        (local.set $v1 (i32.add (local.get $seed) (i32.const 0x24234428)))
        (local.set $v2 (i32.add (local.get $seed) (i32.const 0x85ebca77)))
        (local.set $v3 (local.get $seed))
        (local.set $v4 (i32.sub (local.get $seed) (i32.const 0x9e3779b1)))
        (local.set $last (i32.sub (local.get $end) (i32.const 16)))
        (loop $stripe
          (local.set $v1 (i32.mul (i32.rotl (i32.add (local.get $v1) (i32.mul (i32.load offset=0 (local.get $p)) (i32.const 0x85ebca77))) (i32.const 13)) (i32.const 0x9e3779b1)))
          (local.set $v2 (i32.mul (i32.rotl (i32.add (local.get $v2) (i32.mul (i32.load offset=4 (local.get $p)) (i32.const 0x85ebca77))) (i32.const 13)) (i32.const 0x9e3779b1)))
          (local.set $v3 (i32.mul (i32.rotl (i32.add (local.get $v3) (i32.mul (i32.load offset=8 (local.get $p)) (i32.const 0x85ebca77))) (i32.const 13)) (i32.const 0x9e3779b1)))
          (local.set $v4 (i32.mul (i32.rotl (i32.add (local.get $v4) (i32.mul (i32.load offset=12 (local.get $p)) (i32.const 0x85ebca77))) (i32.const 13)) (i32.const 0x9e3779b1)))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (br_if $stripe (i32.le_u (local.get $p) (local.get $last))))
        (local.set $acc
          (i32.add
            (i32.add (i32.rotl (local.get $v1) (i32.const 1)) (i32.rotl (local.get $v2) (i32.const 7)))
            (i32.add (i32.rotl (local.get $v3) (i32.const 12)) (i32.rotl (local.get $v4) (i32.const 18))))))
      (else (local.set $acc (i32.add (local.get $seed) (i32.const 0x165667b1)))))
    (call $finish (i32.add (local.get $acc) (local.get $len)) (local.get $p) (local.get $end)))
)
