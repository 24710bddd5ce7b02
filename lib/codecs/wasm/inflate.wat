;; sluice's inflate kernel: the Huffman-coded part of raw DEFLATE (RFC 1951 section 3.2.5)
;; and CRC-32, hand-written WebAssembly. Assembled by `node scripts/build-wasm-kernels.mjs`
;; (npm `wabt`) into gen/inflate.wasm and gen/inflate.b64.ts. Block headers, code tables
;; and stored blocks stay in TypeScript (lib/codecs/inflate-wasm.ts), which lays out this
;; module's memory, builds the tables (lib/codecs/inflate.ts `buildTable`, same entry
;; format) and stages input and output through it.
;;
;; `codes` decodes literal/length + distance pairs. It runs a fast loop (in the spirit of
;; zlib's inflate_fast) while at least 16 input bytes remain: one 64-bit refill per pair,
;; no bounds checks. The last bytes of the input go through a careful loop that decodes
;; one unit (a literal, a match, or the end-of-block code) at a time and, when the input
;; ends inside a unit, rolls back to the unit's start: the caller keeps those few bytes
;; and calls again with more. So the position where `codes` stops is always exact to the
;; bit, and a code is judged invalid only from bits that are really there.
;;
;; Memory contract (the caller's): matches are checked against [hist, out); output may
;; run up to 300 bytes past outLimit (up to 3 literals and a 258-byte match started
;; before it, copied 8 or 16 bytes at a time); input is read up to inEnd only.
;;
;; Features: MVP + bulk memory. No SIMD, no imports.
(module
  (memory (export "memory") 13 32768)

  ;; Table entries (i32, built by lib/codecs/inflate.ts):
  ;;   bits 0-3 code length (0 for a link), bits 4-7 extra bits or subtable index bits,
  ;;   bits 8-10 kind: 0x000 literal, 0x100 length/distance base, 0x200 end of block,
  ;;   0x300 link to a subtable, 0x400 invalid; bits 16-30 the value.
  ;;
  ;; Statuses of `codes`:
  ;;   0 FULL      out reached outLimit (the next unit is not the end of the block)
  ;;   1 END       end-of-block code decoded
  ;;   2 NEED      the input ends inside the next unit (rolled back to its start)
  ;;   3 BAD_LIT   invalid literal/length code
  ;;   4 BAD_DIST  invalid distance code
  ;;   5 FAR       distance farther back than [hist, out)
  ;; Where it stopped goes to memory: [0] next input byte address, [4] bits of that byte
  ;; already used (0-7), [8] next output address.

  ;; CRC-32 tables (slicing-by-16, reflected polynomial 0xEDB88320) live at 1024: 16
  ;; tables of 256 i32, written by the caller; table k maps a byte to its contribution
  ;; k bytes further on.

  ;; Copies a match of `len` bytes from `d` back; returns the new output address.
  (func $copy (param $out i32) (param $d i32) (param $len i32) (result i32)
    (local $from i32) (local $end i32) (local $v i64) (local $e i32) (local $stop i32)
    (local.set $end (i32.add (local.get $out) (local.get $len)))
    (if (i32.lt_u (local.get $d) (i32.const 8))
      (then
        (if (i32.eq (local.get $d) (i32.const 1))
          (then
            (local.set $v (i64.mul (i64.load8_u (i32.sub (local.get $out) (i32.const 1))) (i64.const 0x0101010101010101)))
            (loop $c1
              (i64.store (local.get $out) (local.get $v))
              (local.set $out (i32.add (local.get $out) (i32.const 8)))
              (br_if $c1 (i32.lt_u (local.get $out) (local.get $end))))
            (return (local.get $end))))
        ;; Period d < 8: the output repeats every d bytes, so it also repeats every
        ;; e = the first multiple of d >= 8. Copy e - d bytes one by one, then 8 at a
        ;; time from e back.
        (local.set $e (i32.mul (local.get $d) (i32.div_u (i32.add (local.get $d) (i32.const 7)) (local.get $d))))
        (local.set $from (i32.sub (local.get $out) (local.get $d)))
        (local.set $stop (i32.add (local.get $out) (i32.sub (local.get $e) (local.get $d))))
        (loop $cb
          (i32.store8 (local.get $out) (i32.load8_u (local.get $from)))
          (local.set $out (i32.add (local.get $out) (i32.const 1)))
          (local.set $from (i32.add (local.get $from) (i32.const 1)))
          (br_if $cb (i32.lt_u (local.get $out) (local.get $stop))))
        (if (i32.ge_u (local.get $out) (local.get $end)) (then (return (local.get $end))))
        (local.set $d (local.get $e))))
    (local.set $from (i32.sub (local.get $out) (local.get $d)))
    (loop $c8
      (i64.store (local.get $out) (i64.load (local.get $from)))
      (local.set $out (i32.add (local.get $out) (i32.const 8)))
      (local.set $from (i32.add (local.get $from) (i32.const 8)))
      (br_if $c8 (i32.lt_u (local.get $out) (local.get $end))))
    (local.get $end))

  ;; ---------------------------------------------------------------------------------
  ;; codes(in, inEnd, bitOff, out, outLimit, hist, lit, litRoot, dist, distRoot) -> status
  ;;
  ;; Decodes from bit `bitOff` of byte `in` up to `inEnd` into `out`, with the tables at
  ;; `lit` (root index width `litRoot`) and `dist` (`distRoot`). Stops before a unit when
  ;; out >= outLimit, unless that unit is the end-of-block code.
  (func $codes (export "codes")
    (param $in i32) (param $inEnd i32) (param $bitOff i32) (param $out i32) (param $outLimit i32)
    (param $hist i32) (param $lit i32) (param $litRoot i32) (param $dist i32) (param $distRoot i32)
    (result i32)
    (local $bb i64) (local $bc i32) (local $e i32) (local $n i32) (local $x i32)
    (local $len i32) (local $d i32) (local $from i32) (local $end i32) (local $v i64)
    (local $litMask i32) (local $distMask i32) (local $litShift i64) (local $distShift i64)
    (local $inFast i32) (local $status i32)
    (local $sIn i32) (local $sBb i64) (local $sBc i32) (local $p i32)

    (local.set $litMask (i32.sub (i32.shl (i32.const 1) (local.get $litRoot)) (i32.const 1)))
    (local.set $distMask (i32.sub (i32.shl (i32.const 1) (local.get $distRoot)) (i32.const 1)))
    (local.set $litShift (i64.extend_i32_u (local.get $litRoot)))
    (local.set $distShift (i64.extend_i32_u (local.get $distRoot)))
    (local.set $inFast (i32.sub (local.get $inEnd) (i32.const 16)))
    (if (local.get $bitOff)
      (then
        (local.set $bb (i64.shr_u (i64.load8_u (local.get $in)) (i64.extend_i32_u (local.get $bitOff))))
        (local.set $bc (i32.sub (i32.const 8) (local.get $bitOff)))
        (local.set $in (i32.add (local.get $in) (i32.const 1)))))

    (block $exit
      (block $careful
        ;; Fast loop. Invariant at the top: bc < 64 valid bits in bb; bits above bc may
        ;; hold the following input bits (the refill's read-ahead), which later refills
        ;; OR in again at the same places.
        (loop $fast
          (br_if $careful (i32.gt_s (local.get $in) (local.get $inFast)))
          (br_if $careful (i32.ge_u (local.get $out) (local.get $outLimit)))
          ;; Refill to 56..63 bits: at most 7 bytes taken, 8 read.
          (local.set $bb (i64.or (local.get $bb) (i64.shl (i64.load (local.get $in)) (i64.extend_i32_u (local.get $bc)))))
          (local.set $in (i32.add (local.get $in) (i32.shr_u (i32.sub (i32.const 63) (local.get $bc)) (i32.const 3))))
          (local.set $bc (i32.or (local.get $bc) (i32.const 56)))

          ;; Literal/length symbol (<= 15 bits).
          (local.set $e (i32.load (i32.add (local.get $lit) (i32.shl (i32.and (i32.wrap_i64 (local.get $bb)) (local.get $litMask)) (i32.const 2)))))
          (if (i32.eq (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x300))
            (then
              (local.set $e (i32.load (i32.add (local.get $lit) (i32.shl
                (i32.add (i32.shr_u (local.get $e) (i32.const 16))
                  (i32.and (i32.wrap_i64 (i64.shr_u (local.get $bb) (local.get $litShift)))
                    (i32.sub (i32.shl (i32.const 1) (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15))) (i32.const 1))))
                (i32.const 2)))))))
          (local.set $n (i32.and (local.get $e) (i32.const 15)))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $n))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $n)))

          (if (i32.eqz (i32.and (local.get $e) (i32.const 0x700)))
            (then
              (i32.store8 (local.get $out) (i32.shr_u (local.get $e) (i32.const 16)))
              (local.set $out (i32.add (local.get $out) (i32.const 1)))
              ;; Two more symbols without a refill: >= 41 bits are left after the first
              ;; literal, >= 26 after the second (a symbol takes <= 15).
              (local.set $e (i32.load (i32.add (local.get $lit) (i32.shl (i32.and (i32.wrap_i64 (local.get $bb)) (local.get $litMask)) (i32.const 2)))))
              (if (i32.eq (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x300))
                (then
                  (local.set $e (i32.load (i32.add (local.get $lit) (i32.shl
                    (i32.add (i32.shr_u (local.get $e) (i32.const 16))
                      (i32.and (i32.wrap_i64 (i64.shr_u (local.get $bb) (local.get $litShift)))
                        (i32.sub (i32.shl (i32.const 1) (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15))) (i32.const 1))))
                    (i32.const 2)))))))
              (local.set $n (i32.and (local.get $e) (i32.const 15)))
              (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $n))))
              (local.set $bc (i32.sub (local.get $bc) (local.get $n)))
              (if (i32.eqz (i32.and (local.get $e) (i32.const 0x700)))
                (then
                  (i32.store8 (local.get $out) (i32.shr_u (local.get $e) (i32.const 16)))
                  (local.set $out (i32.add (local.get $out) (i32.const 1)))
                  (local.set $e (i32.load (i32.add (local.get $lit) (i32.shl (i32.and (i32.wrap_i64 (local.get $bb)) (local.get $litMask)) (i32.const 2)))))
                  (if (i32.eq (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x300))
                    (then
                      (local.set $e (i32.load (i32.add (local.get $lit) (i32.shl
                        (i32.add (i32.shr_u (local.get $e) (i32.const 16))
                          (i32.and (i32.wrap_i64 (i64.shr_u (local.get $bb) (local.get $litShift)))
                            (i32.sub (i32.shl (i32.const 1) (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15))) (i32.const 1))))
                        (i32.const 2)))))))
                  (local.set $n (i32.and (local.get $e) (i32.const 15)))
                  (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $n))))
                  (local.set $bc (i32.sub (local.get $bc) (local.get $n)))
                  (if (i32.eqz (i32.and (local.get $e) (i32.const 0x700)))
                    (then
                      (i32.store8 (local.get $out) (i32.shr_u (local.get $e) (i32.const 16)))
                      (local.set $out (i32.add (local.get $out) (i32.const 1)))
                      (br $fast)))))))

          ;; Not a literal: end of block, invalid, or a length base.
          (if (i32.ne (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x100))
            (then
              (local.set $status
                (select (i32.const 1) (i32.const 3) (i32.eq (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x200))))
              (br $exit)))
          ;; Length extra bits (<= 5; >= 11 bits are left).
          (local.set $x (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15)))
          (local.set $len (i32.add (i32.shr_u (local.get $e) (i32.const 16))
            (i32.and (i32.wrap_i64 (local.get $bb)) (i32.sub (i32.shl (i32.const 1) (local.get $x)) (i32.const 1)))))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $x))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $x)))
          ;; The distance needs <= 15 + 13 bits. The second refill stays inside the
          ;; input: the loop started with 16 bytes, the first refill took <= 7.
          (if (i32.lt_u (local.get $bc) (i32.const 28))
            (then
              (local.set $bb (i64.or (local.get $bb) (i64.shl (i64.load (local.get $in)) (i64.extend_i32_u (local.get $bc)))))
              (local.set $in (i32.add (local.get $in) (i32.shr_u (i32.sub (i32.const 63) (local.get $bc)) (i32.const 3))))
              (local.set $bc (i32.or (local.get $bc) (i32.const 56)))))
          (local.set $e (i32.load (i32.add (local.get $dist) (i32.shl (i32.and (i32.wrap_i64 (local.get $bb)) (local.get $distMask)) (i32.const 2)))))
          (if (i32.eq (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x300))
            (then
              (local.set $e (i32.load (i32.add (local.get $dist) (i32.shl
                (i32.add (i32.shr_u (local.get $e) (i32.const 16))
                  (i32.and (i32.wrap_i64 (i64.shr_u (local.get $bb) (local.get $distShift)))
                    (i32.sub (i32.shl (i32.const 1) (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15))) (i32.const 1))))
                (i32.const 2)))))))
          (local.set $n (i32.and (local.get $e) (i32.const 15)))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $n))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $n)))
          (if (i32.ne (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x100))
            (then (local.set $status (i32.const 4)) (br $exit)))
          (local.set $x (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15)))
          (local.set $d (i32.add (i32.shr_u (local.get $e) (i32.const 16))
            (i32.and (i32.wrap_i64 (local.get $bb)) (i32.sub (i32.shl (i32.const 1) (local.get $x)) (i32.const 1)))))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $x))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $x)))
          (if (i32.gt_u (local.get $d) (i32.sub (local.get $out) (local.get $hist)))
            (then (local.set $status (i32.const 5)) (br $exit)))

          ;; Copy the match (inline copy of $copy).
          (local.set $from (i32.sub (local.get $out) (local.get $d)))
          (local.set $end (i32.add (local.get $out) (local.get $len)))
          (if (i32.ge_u (local.get $d) (i32.const 16))
            (then
              (loop $c16
                (i64.store (local.get $out) (i64.load (local.get $from)))
                (i64.store offset=8 (local.get $out) (i64.load offset=8 (local.get $from)))
                (local.set $out (i32.add (local.get $out) (i32.const 16)))
                (local.set $from (i32.add (local.get $from) (i32.const 16)))
                (br_if $c16 (i32.lt_u (local.get $out) (local.get $end)))))
            (else
              (local.set $out (call $copy (local.get $out) (local.get $d) (local.get $len)))))
          (local.set $out (local.get $end))
          (br $fast)))

      ;; Careful loop: one unit at a time, bits counted exactly. Drop the read-ahead
      ;; bits first, so that bb holds exactly bc bits.
      (local.set $bb (i64.and (local.get $bb) (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (local.get $bc))) (i64.const 1))))
      (loop $slow
        (local.set $sIn (local.get $in))
        (local.set $sBb (local.get $bb))
        (local.set $sBc (local.get $bc))
        ;; Refill byte by byte (a unit needs <= 48 bits).
        (block $filled
          (loop $fill
            (br_if $filled (i32.gt_u (local.get $bc) (i32.const 56)))
            (br_if $filled (i32.ge_u (local.get $in) (local.get $inEnd)))
            (local.set $bb (i64.or (local.get $bb) (i64.shl (i64.load8_u (local.get $in)) (i64.extend_i32_u (local.get $bc)))))
            (local.set $in (i32.add (local.get $in) (i32.const 1)))
            (local.set $bc (i32.add (local.get $bc) (i32.const 8)))
            (br $fill)))
        (block $need
          (local.set $e (i32.load (i32.add (local.get $lit) (i32.shl (i32.and (i32.wrap_i64 (local.get $bb)) (local.get $litMask)) (i32.const 2)))))
          (if (i32.eq (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x300))
            (then
              (local.set $e (i32.load (i32.add (local.get $lit) (i32.shl
                (i32.add (i32.shr_u (local.get $e) (i32.const 16))
                  (i32.and (i32.wrap_i64 (i64.shr_u (local.get $bb) (local.get $litShift)))
                    (i32.sub (i32.shl (i32.const 1) (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15))) (i32.const 1))))
                (i32.const 2)))))))
          (local.set $n (i32.and (local.get $e) (i32.const 15)))
          ;; A code longer than the bits we have was looked up with missing bits: wait.
          ;; (A link entry resolves to a code longer than the root, so the same check holds.)
          (br_if $need (i32.gt_u (local.get $n) (local.get $bc)))
          (if (i32.and (i32.ge_u (local.get $out) (local.get $outLimit))
                       (i32.ne (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x200)))
            (then
              ;; Nothing consumed since the refill: the position is unchanged.
              (local.set $status (i32.const 0))
              (br $exit)))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $n))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $n)))
          (if (i32.eqz (i32.and (local.get $e) (i32.const 0x700)))
            (then
              (i32.store8 (local.get $out) (i32.shr_u (local.get $e) (i32.const 16)))
              (local.set $out (i32.add (local.get $out) (i32.const 1)))
              (br $slow)))
          (if (i32.ne (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x100))
            (then
              (local.set $status
                (select (i32.const 1) (i32.const 3) (i32.eq (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x200))))
              (br $exit)))
          (local.set $x (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15)))
          (br_if $need (i32.gt_u (local.get $x) (local.get $bc)))
          (local.set $len (i32.add (i32.shr_u (local.get $e) (i32.const 16))
            (i32.and (i32.wrap_i64 (local.get $bb)) (i32.sub (i32.shl (i32.const 1) (local.get $x)) (i32.const 1)))))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $x))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $x)))
          (local.set $e (i32.load (i32.add (local.get $dist) (i32.shl (i32.and (i32.wrap_i64 (local.get $bb)) (local.get $distMask)) (i32.const 2)))))
          (if (i32.eq (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x300))
            (then
              (local.set $e (i32.load (i32.add (local.get $dist) (i32.shl
                (i32.add (i32.shr_u (local.get $e) (i32.const 16))
                  (i32.and (i32.wrap_i64 (i64.shr_u (local.get $bb) (local.get $distShift)))
                    (i32.sub (i32.shl (i32.const 1) (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15))) (i32.const 1))))
                (i32.const 2)))))))
          (local.set $n (i32.and (local.get $e) (i32.const 15)))
          (br_if $need (i32.gt_u (local.get $n) (local.get $bc)))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $n))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $n)))
          (if (i32.ne (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x100))
            (then (local.set $status (i32.const 4)) (br $exit)))
          (local.set $x (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15)))
          (br_if $need (i32.gt_u (local.get $x) (local.get $bc)))
          (local.set $d (i32.add (i32.shr_u (local.get $e) (i32.const 16))
            (i32.and (i32.wrap_i64 (local.get $bb)) (i32.sub (i32.shl (i32.const 1) (local.get $x)) (i32.const 1)))))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $x))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $x)))
          (if (i32.gt_u (local.get $d) (i32.sub (local.get $out) (local.get $hist)))
            (then (local.set $status (i32.const 5)) (br $exit)))
          (local.set $out (call $copy (local.get $out) (local.get $d) (local.get $len)))
          (br $slow))
        ;; The input ends inside this unit: back to its start.
        (local.set $in (local.get $sIn))
        (local.set $bb (local.get $sBb))
        (local.set $bc (local.get $sBc))
        (local.set $status (i32.const 2))))

    ;; Position of the next unused bit: in * 8 - bc.
    (local.set $p (i32.sub (i32.shl (local.get $in) (i32.const 3)) (local.get $bc)))
    (i32.store (i32.const 0) (i32.shr_u (local.get $p) (i32.const 3)))
    (i32.store (i32.const 4) (i32.and (local.get $p) (i32.const 7)))
    (i32.store (i32.const 8) (local.get $out))
    (local.get $status))

  ;; ---------------------------------------------------------------------------------
  ;; crc32(crc, p, n) -> CRC-32 of [p, p + n) continuing from `crc` (0 for a new one).
  ;; Slicing-by-16: 16 bytes per step, one table lookup per byte, the lookups of a step
  ;; independent of each other. Bytes 4-15 are loaded one by one (measured ~10% faster
  ;; here than shifting them out of three more 32-bit loads).
  (func $crc32 (export "crc32") (param $crc i32) (param $p i32) (param $n i32) (result i32)
    (local $c i32) (local $end i32) (local $a i32)
    (local.set $c (i32.xor (local.get $crc) (i32.const -1)))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (block $done16
      (loop $l16
        (br_if $done16 (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $a (i32.xor (i32.load (local.get $p)) (local.get $c)))
        (local.set $c
          (i32.xor
            (i32.xor
              (i32.xor
                (i32.xor
                  (i32.load offset=16384 (i32.shl (i32.and (local.get $a) (i32.const 255)) (i32.const 2)))
                  (i32.load offset=15360 (i32.shl (i32.and (i32.shr_u (local.get $a) (i32.const 8)) (i32.const 255)) (i32.const 2))))
                (i32.xor
                  (i32.load offset=14336 (i32.shl (i32.and (i32.shr_u (local.get $a) (i32.const 16)) (i32.const 255)) (i32.const 2)))
                  (i32.load offset=13312 (i32.shl (i32.shr_u (local.get $a) (i32.const 24)) (i32.const 2)))))
              (i32.xor
                (i32.xor
                  (i32.load offset=12288 (i32.shl (i32.load8_u offset=4 (local.get $p)) (i32.const 2)))
                  (i32.load offset=11264 (i32.shl (i32.load8_u offset=5 (local.get $p)) (i32.const 2))))
                (i32.xor
                  (i32.load offset=10240 (i32.shl (i32.load8_u offset=6 (local.get $p)) (i32.const 2)))
                  (i32.load offset=9216 (i32.shl (i32.load8_u offset=7 (local.get $p)) (i32.const 2))))))
            (i32.xor
              (i32.xor
                (i32.xor
                  (i32.load offset=8192 (i32.shl (i32.load8_u offset=8 (local.get $p)) (i32.const 2)))
                  (i32.load offset=7168 (i32.shl (i32.load8_u offset=9 (local.get $p)) (i32.const 2))))
                (i32.xor
                  (i32.load offset=6144 (i32.shl (i32.load8_u offset=10 (local.get $p)) (i32.const 2)))
                  (i32.load offset=5120 (i32.shl (i32.load8_u offset=11 (local.get $p)) (i32.const 2)))))
              (i32.xor
                (i32.xor
                  (i32.load offset=4096 (i32.shl (i32.load8_u offset=12 (local.get $p)) (i32.const 2)))
                  (i32.load offset=3072 (i32.shl (i32.load8_u offset=13 (local.get $p)) (i32.const 2))))
                (i32.xor
                  (i32.load offset=2048 (i32.shl (i32.load8_u offset=14 (local.get $p)) (i32.const 2)))
                  (i32.load offset=1024 (i32.shl (i32.load8_u offset=15 (local.get $p)) (i32.const 2))))))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $l16)))
    (block $done
      (loop $l1
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c
          (i32.xor
            (i32.load offset=1024 (i32.shl (i32.and (i32.xor (local.get $c) (i32.load8_u (local.get $p))) (i32.const 255)) (i32.const 2)))
            (i32.shr_u (local.get $c) (i32.const 8))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $l1)))
    (i32.xor (local.get $c) (i32.const -1)))
)
