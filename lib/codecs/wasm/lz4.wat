;; sluice's LZ4 kernel: the raw block decoder, the block compressor and xxHash32,
;; hand-written WebAssembly.
;; Assembled by `node scripts/build-wasm-kernels.mjs` (npm `wabt`) into gen/lz4.wasm and
;; gen/lz4.b64.ts; the frame logic stays in TypeScript (lib/codecs/lz4.ts), which stages
;; blocks through this module's memory (lib/codecs/lz4-wasm.ts).
;;
;; Safety contract: every function checks the ranges it is given against the memory size
;; first and returns ERR_RANGE (-4) instead of trapping; the decoder reads only inside
;; [src, srcEnd + 32) and writes only inside [dst, dstEnd + 32): the 32 bytes after each
;; range are scratch ("slack") that the caller reserves, so short literal and match runs
;; are copied 8 or 16 bytes at a time without a bounds check per byte (the reference
;; decoder's "wild copy", done here into slack instead of stopping 12 bytes early). The
;; compressor likewise reads and writes at most 16 bytes past its ranges.
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
        ;; A match with offset >= 8 that stays after dictStart is copied here; others
        ;; (offset 1..7, or out of range: an error) take the general path.
        (br_if $matchStage
          (i32.or (i32.lt_u (local.get $offset) (i32.const 8))
                  (i32.gt_u (local.get $offset) (i32.sub (local.get $op) (local.get $dictStart)))))
        (local.set $from (i32.sub (local.get $op) (local.get $offset)))
        (if (i32.eq (i32.and (local.get $token) (i32.const 15)) (i32.const 15))
          (then
            ;; Long match (measured: 8% of the sequences of text, a third of its bytes,
            ;; worth keeping out of the general path): length bytes, each checked, then
            ;; 16 (offset >= 16) or 8 bytes at a time, each read covering only bytes
            ;; written before it. Writes <= end + 15 <= dstEnd + 15. memory.copy for
            ;; long non-overlapping runs measured slower here.
            (local.set $len (i32.const 19))
            (loop $more
              (if (i32.ge_u (local.get $ip) (local.get $srcEnd)) (then (return (i32.const -1))))
              (local.set $byte (i32.load8_u (local.get $ip)))
              (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
              (local.set $len (i32.add (local.get $len) (local.get $byte)))
              (if (i32.gt_u (local.get $len) (i32.const 0x7ffffff0))
                (then (local.set $len (i32.const 0x7ffffff0))))
              (br_if $more (i32.eq (local.get $byte) (i32.const 255))))
            (if (i32.gt_u (local.get $len) (i32.sub (local.get $dstEnd) (local.get $op)))
              (then (return (i32.const -2))))
            (local.set $end (i32.add (local.get $op) (local.get $len)))
            (if (i32.ge_u (local.get $offset) (i32.const 16))
              (then
                (loop $fast16
                  (i64.store (local.get $op) (i64.load (local.get $from)))
                  (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $from)))
                  (local.set $op (i32.add (local.get $op) (i32.const 16)))
                  (local.set $from (i32.add (local.get $from) (i32.const 16)))
                  (br_if $fast16 (i32.lt_u (local.get $op) (local.get $end)))))
              (else
                (loop $fast8
                  (i64.store (local.get $op) (i64.load (local.get $from)))
                  (local.set $op (i32.add (local.get $op) (i32.const 8)))
                  (local.set $from (i32.add (local.get $from) (i32.const 8)))
                  (br_if $fast8 (i32.lt_u (local.get $op) (local.get $end))))))
            (local.set $op (local.get $end))
            ;; A block must end with literals ("End of block conditions").
            (br_if $sequence (i32.lt_u (local.get $ip) (local.get $srcEnd)))
            (return (i32.const -1))))
        ;; Short match (<= 18): 24 bytes copied 8 at a time (right for overlaps since
        ;; offset >= 8); writes <= dstEnd + 6.
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
              (if (i32.ge_u (local.get $offset) (i32.const 16))
                (then
                  (if (i32.and (i32.ge_u (local.get $offset) (local.get $len)) (i32.gt_u (local.get $len) (i32.const 64)))
                    (then (memory.copy (local.get $op) (local.get $from) (local.get $len)))
                    (else
                      ;; offset >= 16: 16 bytes at a time, each read before the bytes it
                      ;; covers are overwritten. Writes <= end + 15 <= dstEnd + 15.
                      (loop $copy16
                        (i64.store (local.get $op) (i64.load (local.get $from)))
                        (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $from)))
                        (local.set $op (i32.add (local.get $op) (i32.const 16)))
                        (local.set $from (i32.add (local.get $from) (i32.const 16)))
                        (br_if $copy16 (i32.lt_u (local.get $op) (local.get $end)))))))
                (else
                  ;; Period 8..15: 8 bytes at a time.
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
  ;; compress(src, srcEnd, dst, dstEnd, table, hashLog) -> compressed size | -1 | ERR_RANGE
  ;;
  ;; Compresses [src, srcEnd) as one independent LZ4 block into [dst, dstEnd), or returns
  ;; -1 when it does not fit. The same greedy search as encodeBlock() in
  ;; lib/codecs/lz4-block.ts, decision for decision, so both write the same bytes
  ;; (test/lz4.test.ts compares them): a 4-byte multiplicative hash of each probed
  ;; position into a table of 2^hashLog positions (hashLog 8..16) at `table`, a probe step
  ;; that grows by one every 64 misses, backward extension over bytes that were going to
  ;; be literals, and one probe right after each match.
  ;;
  ;; Reads stay inside [src, srcEnd + 16) and writes inside [dst, dstEnd + 16) and the
  ;; table: like the decoder, short literal runs are copied 8 bytes at a time into the
  ;; caller's slack. Every byte of [dst, dst + size) is written in order, so the result
  ;; does not depend on what the slack held.
  (func $compress (export "compress")
    (param $src i32) (param $srcEnd i32) (param $dst i32) (param $dstEnd i32) (param $table i32) (param $hashLog i32)
    (result i32)
    (local $op i32) (local $anchor i32) (local $ip i32) (local $ref i32) (local $seq i32) (local $h i32)
    (local $shift i32) (local $forward i32) (local $probes i32) (local $step i32) (local $tokenPos i32)
    (local $len i32) (local $mp i32) (local $rp i32) (local $diff i64) (local $matchLimit i32) (local $mfLimit i32)
    (local $from i32) (local $end i32) (local $fill i64)

    (if (i32.or (i32.lt_u (local.get $hashLog) (i32.const 8)) (i32.gt_u (local.get $hashLog) (i32.const 16)))
      (then (return (i32.const -4))))
    (if (i32.or
          (i32.or (i32.gt_u (local.get $src) (local.get $srcEnd)) (i32.gt_u (local.get $srcEnd) (call $limit)))
          (i32.or (i32.or (i32.gt_u (local.get $dst) (local.get $dstEnd)) (i32.gt_u (local.get $dstEnd) (call $limit)))
                  (call $outside (local.get $table) (i32.shl (i32.const 4) (local.get $hashLog)))))
      (then (return (i32.const -4))))
    (local.set $op (local.get $dst))
    (local.set $anchor (local.get $src))

    ;; Blocks under 13 bytes cannot hold a match ("End of block conditions"): literals only.
    (block $lastLiterals
      (br_if $lastLiterals (i32.lt_u (i32.sub (local.get $srcEnd) (local.get $src)) (i32.const 13)))
      (local.set $shift (i32.sub (i32.const 32) (local.get $hashLog)))
      ;; Every entry starts at src: positions, trusted only after their 4 bytes compare
      ;; equal (the fill keeps the output deterministic).
      (local.set $fill (i64.mul (i64.extend_i32_u (local.get $src)) (i64.const 0x100000001)))
      (local.set $h (local.get $table))
      (local.set $end (i32.add (local.get $table) (i32.shl (i32.const 4) (local.get $hashLog))))
      (loop $clear
        (i64.store (local.get $h) (local.get $fill))
        (i64.store offset=8 (local.get $h) (local.get $fill))
        (i64.store offset=16 (local.get $h) (local.get $fill))
        (i64.store offset=24 (local.get $h) (local.get $fill))
        (local.set $h (i32.add (local.get $h) (i32.const 32)))
        (br_if $clear (i32.lt_u (local.get $h) (local.get $end))))
      ;; The last 5 bytes are literals; the last match starts >= 12 bytes before the end.
      (local.set $matchLimit (i32.sub (local.get $srcEnd) (i32.const 5)))
      (local.set $mfLimit (i32.sub (local.get $srcEnd) (i32.const 12)))
      (local.set $ip (local.get $src))
      (i32.store
        (i32.add (local.get $table)
                 (i32.shl (i32.shr_u (i32.mul (i32.load (local.get $ip)) (i32.const 0x9e3779b1)) (local.get $shift)) (i32.const 2)))
        (local.get $ip))
      (local.set $ip (i32.add (local.get $ip) (i32.const 1)))

      (loop $outer
        ;; ---- search: probe forward, the step growing by one every 64 misses
        (local.set $forward (local.get $ip))
        (local.set $probes (i32.const 64))
        (local.set $step (i32.const 1))
        (loop $search
          (local.set $ip (local.get $forward))
          (local.set $forward (i32.add (local.get $forward) (local.get $step)))
          (local.set $step (i32.shr_u (local.get $probes) (i32.const 6)))
          (local.set $probes (i32.add (local.get $probes) (i32.const 1)))
          (br_if $lastLiterals (i32.gt_u (local.get $ip) (local.get $mfLimit)))
          (local.set $seq (i32.load (local.get $ip)))
          (local.set $h
            (i32.add (local.get $table)
                     (i32.shl (i32.shr_u (i32.mul (local.get $seq) (i32.const 0x9e3779b1)) (local.get $shift)) (i32.const 2))))
          (local.set $ref (i32.load (local.get $h)))
          (i32.store (local.get $h) (local.get $ip))
          ;; ref < ip and ip - ref <= 65535, in one unsigned compare.
          (br_if $search
            (i32.or (i32.ge_u (i32.sub (i32.sub (local.get $ip) (local.get $ref)) (i32.const 1)) (i32.const 65535))
                    (i32.ne (i32.load (local.get $ref)) (local.get $seq)))))

        ;; ---- extend backwards over bytes that were going to be literals
        (block $back
          (loop $backLoop
            (br_if $back (i32.or (i32.le_u (local.get $ip) (local.get $anchor)) (i32.le_u (local.get $ref) (local.get $src))))
            (br_if $back (i32.ne (i32.load8_u offset=0 (i32.sub (local.get $ip) (i32.const 1)))
                                 (i32.load8_u offset=0 (i32.sub (local.get $ref) (i32.const 1)))))
            (local.set $ip (i32.sub (local.get $ip) (i32.const 1)))
            (local.set $ref (i32.sub (local.get $ref) (i32.const 1)))
            (br $backLoop)))

        ;; ---- literals; room for them, their length bytes, token, offset and the
        ;; smallest tail (token + 5 last literals)
        (local.set $len (i32.sub (local.get $ip) (local.get $anchor)))
        (if (i32.gt_u
              (i32.add (i32.add (local.get $op) (local.get $len))
                       (i32.add (i32.div_u (i32.add (local.get $len) (i32.const 240)) (i32.const 255)) (i32.const 9)))
              (local.get $dstEnd))
          (then (return (i32.const -1))))
        (local.set $tokenPos (local.get $op))
        (local.set $op (i32.add (local.get $op) (i32.const 1)))
        (if (i32.lt_u (local.get $len) (i32.const 15))
          (then
            ;; 16 bytes copied, len (<= 14) kept: reads end before ip + 16 <= srcEnd + 4,
            ;; writes before op + 16 <= dstEnd + 7 (the room check reserved 9 after len).
            (i32.store8 (local.get $tokenPos) (i32.shl (local.get $len) (i32.const 4)))
            (i64.store (local.get $op) (i64.load (local.get $anchor)))
            (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $anchor)))
            (local.set $op (i32.add (local.get $op) (local.get $len))))
          (else
            (local.set $op (call $literals (local.get $anchor) (local.get $len) (local.get $tokenPos) (local.get $op)))))

        (loop $sequence
          ;; ---- offset, then the match extended forwards (stops 5 bytes before the end)
          (i32.store16 (local.get $op) (i32.sub (local.get $ip) (local.get $ref)))
          (local.set $op (i32.add (local.get $op) (i32.const 2)))
          (local.set $mp (i32.add (local.get $ip) (i32.const 4)))
          (local.set $rp (i32.add (local.get $ref) (i32.const 4)))
          (block $extended
            (block $tail
             (loop $wide
              (br_if $tail (i32.gt_u (i32.add (local.get $mp) (i32.const 8)) (local.get $matchLimit)))
              (local.set $diff (i64.xor (i64.load (local.get $mp)) (i64.load (local.get $rp))))
              (if (i64.ne (local.get $diff) (i64.const 0))
                (then
                  ;; The first differing byte, from the lowest set bit (little-endian).
                  (local.set $mp (i32.add (local.get $mp) (i32.wrap_i64 (i64.shr_u (i64.ctz (local.get $diff)) (i64.const 3)))))
                  (br $extended)))
              (local.set $mp (i32.add (local.get $mp) (i32.const 8)))
              (local.set $rp (i32.add (local.get $rp) (i32.const 8)))
              (br $wide)))
            ;; Fewer than 8 bytes before matchLimit: one at a time.
            (loop $narrow
              (br_if $extended (i32.ge_u (local.get $mp) (local.get $matchLimit)))
              (br_if $extended (i32.ne (i32.load8_u (local.get $mp)) (i32.load8_u (local.get $rp))))
              (local.set $mp (i32.add (local.get $mp) (i32.const 1)))
              (local.set $rp (i32.add (local.get $rp) (i32.const 1)))
              (br $narrow)))
          (local.set $len (i32.sub (i32.sub (local.get $mp) (local.get $ip)) (i32.const 4)))
          (local.set $ip (local.get $mp))
          (if (i32.gt_u
                (i32.add (i32.add (local.get $op) (i32.div_u (local.get $len) (i32.const 255))) (i32.const 7))
                (local.get $dstEnd))
            (then (return (i32.const -1))))
          (if (i32.ge_u (local.get $len) (i32.const 15))
            (then
              (i32.store8 (local.get $tokenPos) (i32.or (i32.load8_u (local.get $tokenPos)) (i32.const 15)))
              (local.set $op (call $lengthBytes (local.get $op) (i32.sub (local.get $len) (i32.const 15)))))
            (else
              (i32.store8 (local.get $tokenPos) (i32.or (i32.load8_u (local.get $tokenPos)) (local.get $len)))))
          (local.set $anchor (local.get $ip))
          (br_if $lastLiterals (i32.gt_u (local.get $ip) (local.get $mfLimit)))
          ;; Index a position inside the match, then try the current position at once: a
          ;; match right after a match needs no literals.
          (local.set $from (i32.sub (local.get $ip) (i32.const 2)))
          (i32.store
            (i32.add (local.get $table)
                     (i32.shl (i32.shr_u (i32.mul (i32.load (local.get $from)) (i32.const 0x9e3779b1)) (local.get $shift)) (i32.const 2)))
            (local.get $from))
          (local.set $seq (i32.load (local.get $ip)))
          (local.set $h
            (i32.add (local.get $table)
                     (i32.shl (i32.shr_u (i32.mul (local.get $seq) (i32.const 0x9e3779b1)) (local.get $shift)) (i32.const 2))))
          (local.set $ref (i32.load (local.get $h)))
          (i32.store (local.get $h) (local.get $ip))
          (if (i32.and (i32.lt_u (i32.sub (i32.sub (local.get $ip) (local.get $ref)) (i32.const 1)) (i32.const 65535))
                       (i32.eq (i32.load (local.get $ref)) (local.get $seq)))
            (then
              (if (i32.gt_u (i32.add (local.get $op) (i32.const 9)) (local.get $dstEnd))
                (then (return (i32.const -1))))
              (local.set $tokenPos (local.get $op))
              (i32.store8 (local.get $tokenPos) (i32.const 0))
              (local.set $op (i32.add (local.get $op) (i32.const 1)))
              (br $sequence))))
        (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
        (br $outer)))

    ;; ---- last literals
    (local.set $len (i32.sub (local.get $srcEnd) (local.get $anchor)))
    (if (i32.gt_u
          (i32.add (i32.add (local.get $op) (i32.const 1))
                   (i32.add (local.get $len) (i32.div_u (i32.add (local.get $len) (i32.const 240)) (i32.const 255))))
          (local.get $dstEnd))
      (then (return (i32.const -1))))
    (local.set $tokenPos (local.get $op))
    (local.set $op (call $literals (local.get $anchor) (local.get $len) (local.get $tokenPos) (i32.add (local.get $op) (i32.const 1))))
    (i32.sub (local.get $op) (local.get $dst)))

  ;; Length bytes for the rest `n` of a length (after the nibble's 15): 255 while n >= 255,
  ;; then n. Returns the address after them.
  (func $lengthBytes (param $op i32) (param $n i32) (result i32)
    (local $count i32)
    (local.set $count (i32.div_u (local.get $n) (i32.const 255)))
    (memory.fill (local.get $op) (i32.const 255) (local.get $count))
    (local.set $op (i32.add (local.get $op) (local.get $count)))
    (i32.store8 (local.get $op) (i32.sub (local.get $n) (i32.mul (local.get $count) (i32.const 255))))
    (i32.add (local.get $op) (i32.const 1)))

  ;; A literal run of `len` bytes from `from`: the token's high nibble at tokenPos, length
  ;; bytes and the literals at op. Returns the address after them. Copies 8 bytes at a
  ;; time up to 64 bytes (reads and writes up to 7 past the run: slack), memory.copy above.
  (func $literals (param $from i32) (param $len i32) (param $tokenPos i32) (param $op i32) (result i32)
    (local $end i32)
    (if (i32.ge_u (local.get $len) (i32.const 15))
      (then
        (i32.store8 (local.get $tokenPos) (i32.const 0xf0))
        (local.set $op (call $lengthBytes (local.get $op) (i32.sub (local.get $len) (i32.const 15)))))
      (else (i32.store8 (local.get $tokenPos) (i32.shl (local.get $len) (i32.const 4)))))
    (local.set $end (i32.add (local.get $op) (local.get $len)))
    (if (i32.gt_u (local.get $len) (i32.const 64))
      (then (memory.copy (local.get $op) (local.get $from) (local.get $len)))
      (else
        (block $done
          (loop $copy
            (br_if $done (i32.ge_u (local.get $op) (local.get $end)))
            (i64.store (local.get $op) (i64.load (local.get $from)))
            (local.set $op (i32.add (local.get $op) (i32.const 8)))
            (local.set $from (i32.add (local.get $from) (i32.const 8)))
            (br $copy)))))
    (local.get $end))

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
  ;;
  ;; Frame decoders run this over each block's output in place, after the decode
  ;; (lib/codecs/lz4-wasm.ts). Each lane is a chain of add, rotate and multiply (~5 cycles
  ;; a stripe), so the four lanes hash at most ~3 bytes a cycle; measured 5.7-7.3 GB/s
  ;; (Node 20), and the content checksum of the lz4 CLI's frame of 8 MiB of text costs
  ;; 1.1-1.3 ms of a one-shot decode's 8.3-8.6 (against the same frame written with
  ;; --no-frame-crc, 60 interleaved calls, medians). Hashing inside the decode loop was
  ;; measured no faster: through this function every 64 B to 8 KiB of output, 1.2-1.9
  ;; ms; stripe by stripe with the lanes in the decoder's locals, 2.6-2.7 ms (the
  ;; decoder's locals no longer fit in registers).
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
