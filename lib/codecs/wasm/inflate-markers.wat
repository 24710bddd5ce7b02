;; sluice's marker inflate kernel: the Huffman-coded part of raw DEFLATE (RFC 1951 section
;; 3.2.5) decoded into 16-bit symbols, for decoding a chunk of a deflate stream whose
;; previous 32 KiB are not known yet (parallel decoding, lib/parallel/inflate-chunk.ts;
;; the two-stage method of pugz and rapidgzip). Assembled by
;; `node scripts/build-wasm-kernels.mjs` (npm `wabt`) into gen/inflate-markers.wasm and
;; gen/inflate-markers.b64.ts.
;;
;; The caller fills the 32768 symbols before the chunk's output with markers (256 + the
;; position in the unknown window, 0 the oldest byte): a match reaching back before the
;; chunk copies markers, which then travel through later matches like bytes do. A
;; literal is stored as its byte value (< 256). Once the window is known, each marker is
;; replaced by its byte (lib/parallel/markers.ts).
;;
;; `codes16` is the 8-bit kernel's `codes` (inflate.wat) with each output element two
;; bytes wide: the same tables, statuses, stop rules and the same [0, 12) record of where
;; it stopped, so the chunk decoder switches between the two at any unit boundary. A
;; match of `len` symbols at distance `d` is a byte copy of 2 * len bytes at distance
;; 2 * d, done by the same period-aware copy.
;;
;; This module has no memory of its own: it imports the memory of an instance of
;; inflate.wat (which exports it), so that both kernels work on the same staged input,
;; tables and output.
;;
;; Memory contract (the caller's): matches are checked against [hist, out) (byte
;; addresses); output may run up to 560 bytes past outLimit (up to 3 literals and a
;; 258-symbol match started before it, copied 8 or 16 bytes at a time); input is read up
;; to inEnd only.
;;
;; Features: MVP + bulk memory. No SIMD.
(module
  (import "env" "memory" (memory 1))

  ;; Copies `len` bytes from `d` bytes back (d >= 2); returns the new output address.
  ;; For d < 8 the output repeats every d bytes, so it also repeats every e = the first
  ;; multiple of d >= 8: copy e - d bytes one by one, then 8 at a time from e back.
  (func $copy (param $out i32) (param $d i32) (param $len i32) (result i32)
    (local $from i32) (local $end i32) (local $e i32) (local $stop i32)
    (local.set $end (i32.add (local.get $out) (local.get $len)))
    (if (i32.lt_u (local.get $d) (i32.const 8))
      (then
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

  ;; Looks up the symbol at the front of `bb` in the table at `t` (root width `mask`
  ;; bits, `shift` the same as i64): the root entry, or the subtable entry it links to.
  (func $entry (param $t i32) (param $bb i64) (param $mask i32) (param $shift i64) (result i32)
    (local $e i32)
    (local.set $e (i32.load (i32.add (local.get $t) (i32.shl (i32.and (i32.wrap_i64 (local.get $bb)) (local.get $mask)) (i32.const 2)))))
    (if (i32.eq (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x300))
      (then
        (local.set $e (i32.load (i32.add (local.get $t) (i32.shl
          (i32.add (i32.shr_u (local.get $e) (i32.const 16))
            (i32.and (i32.wrap_i64 (i64.shr_u (local.get $bb) (local.get $shift)))
              (i32.sub (i32.shl (i32.const 1) (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15))) (i32.const 1))))
          (i32.const 2)))))))
    (local.get $e))

  ;; ---------------------------------------------------------------------------------
  ;; codes16(in, inEnd, bitOff, out, outLimit, hist, lit, litRoot, dist, distRoot) -> status
  ;;
  ;; Statuses (as inflate.wat's `codes`): 0 FULL (out reached outLimit), 1 END (end of
  ;; block), 2 NEED (the input ends inside the next unit; rolled back to its start),
  ;; 3 BAD_LIT, 4 BAD_DIST, 5 FAR (a distance farther back than [hist, out)). Where it
  ;; stopped goes to memory: [0] next input byte address, [4] bits of that byte already
  ;; used (0-7), [8] next output address.
  (func (export "codes16")
    (param $in i32) (param $inEnd i32) (param $bitOff i32) (param $out i32) (param $outLimit i32)
    (param $hist i32) (param $lit i32) (param $litRoot i32) (param $dist i32) (param $distRoot i32)
    (result i32)
    (local $bb i64) (local $bc i32) (local $e i32) (local $n i32) (local $x i32)
    (local $len i32) (local $d i32) (local $from i32) (local $end i32)
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
        ;; Fast loop while 16 input bytes remain: one 64-bit refill per unit (as in
        ;; inflate.wat: bits above bc may hold read-ahead that later refills OR in again).
        (loop $fast
          (br_if $careful (i32.gt_s (local.get $in) (local.get $inFast)))
          (br_if $careful (i32.ge_u (local.get $out) (local.get $outLimit)))
          (local.set $bb (i64.or (local.get $bb) (i64.shl (i64.load (local.get $in)) (i64.extend_i32_u (local.get $bc)))))
          (local.set $in (i32.add (local.get $in) (i32.shr_u (i32.sub (i32.const 63) (local.get $bc)) (i32.const 3))))
          (local.set $bc (i32.or (local.get $bc) (i32.const 56)))

          ;; Up to three literals without a refill (>= 41 bits left after the first, >= 26 after the second).
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
              (i32.store16 (local.get $out) (i32.shr_u (local.get $e) (i32.const 16)))
              (local.set $out (i32.add (local.get $out) (i32.const 2)))
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
                  (i32.store16 (local.get $out) (i32.shr_u (local.get $e) (i32.const 16)))
                  (local.set $out (i32.add (local.get $out) (i32.const 2)))
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
                      (i32.store16 (local.get $out) (i32.shr_u (local.get $e) (i32.const 16)))
                      (local.set $out (i32.add (local.get $out) (i32.const 2)))
                      (br $fast)))))))

          ;; Not a literal: end of block, invalid, or a length base.
          (if (i32.ne (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x100))
            (then
              (local.set $status
                (select (i32.const 1) (i32.const 3) (i32.eq (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x200))))
              (br $exit)))
          (local.set $x (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15)))
          (local.set $len (i32.add (i32.shr_u (local.get $e) (i32.const 16))
            (i32.and (i32.wrap_i64 (local.get $bb)) (i32.sub (i32.shl (i32.const 1) (local.get $x)) (i32.const 1)))))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $x))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $x)))
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
          ;; In bytes from here on: 2 per symbol.
          (local.set $d (i32.shl (i32.add (i32.shr_u (local.get $e) (i32.const 16))
            (i32.and (i32.wrap_i64 (local.get $bb)) (i32.sub (i32.shl (i32.const 1) (local.get $x)) (i32.const 1)))) (i32.const 1)))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $x))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $x)))
          (if (i32.gt_u (local.get $d) (i32.sub (local.get $out) (local.get $hist)))
            (then (local.set $status (i32.const 5)) (br $exit)))
          (local.set $len (i32.shl (local.get $len) (i32.const 1)))
          (local.set $end (i32.add (local.get $out) (local.get $len)))
          (if (i32.ge_u (local.get $d) (i32.const 16))
            (then
              (local.set $from (i32.sub (local.get $out) (local.get $d)))
              (loop $c16
                (i64.store (local.get $out) (i64.load (local.get $from)))
                (i64.store offset=8 (local.get $out) (i64.load offset=8 (local.get $from)))
                (local.set $out (i32.add (local.get $out) (i32.const 16)))
                (local.set $from (i32.add (local.get $from) (i32.const 16)))
                (br_if $c16 (i32.lt_u (local.get $out) (local.get $end)))))
            (else
              (drop (call $copy (local.get $out) (local.get $d) (local.get $len)))))
          (local.set $out (local.get $end))
          (br $fast)))

      ;; Careful loop: one unit at a time, bits counted exactly (bb holds exactly bc bits).
      (local.set $bb (i64.and (local.get $bb) (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (local.get $bc))) (i64.const 1))))
      (loop $slow
        (local.set $sIn (local.get $in))
        (local.set $sBb (local.get $bb))
        (local.set $sBc (local.get $bc))
        (block $filled
          (loop $fill
            (br_if $filled (i32.gt_u (local.get $bc) (i32.const 56)))
            (br_if $filled (i32.ge_u (local.get $in) (local.get $inEnd)))
            (local.set $bb (i64.or (local.get $bb) (i64.shl (i64.load8_u (local.get $in)) (i64.extend_i32_u (local.get $bc)))))
            (local.set $in (i32.add (local.get $in) (i32.const 1)))
            (local.set $bc (i32.add (local.get $bc) (i32.const 8)))
            (br $fill)))
        (block $need
          (local.set $e (call $entry (local.get $lit) (local.get $bb) (local.get $litMask) (local.get $litShift)))
          (local.set $n (i32.and (local.get $e) (i32.const 15)))
          (br_if $need (i32.gt_u (local.get $n) (local.get $bc)))
          (if (i32.and (i32.ge_u (local.get $out) (local.get $outLimit))
                       (i32.ne (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x200)))
            (then
              (local.set $status (i32.const 0))
              (br $exit)))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $n))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $n)))
          (if (i32.eqz (i32.and (local.get $e) (i32.const 0x700)))
            (then
              (i32.store16 (local.get $out) (i32.shr_u (local.get $e) (i32.const 16)))
              (local.set $out (i32.add (local.get $out) (i32.const 2)))
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
          (local.set $e (call $entry (local.get $dist) (local.get $bb) (local.get $distMask) (local.get $distShift)))
          (local.set $n (i32.and (local.get $e) (i32.const 15)))
          (br_if $need (i32.gt_u (local.get $n) (local.get $bc)))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $n))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $n)))
          (if (i32.ne (i32.and (local.get $e) (i32.const 0x700)) (i32.const 0x100))
            (then (local.set $status (i32.const 4)) (br $exit)))
          (local.set $x (i32.and (i32.shr_u (local.get $e) (i32.const 4)) (i32.const 15)))
          (br_if $need (i32.gt_u (local.get $x) (local.get $bc)))
          (local.set $d (i32.shl (i32.add (i32.shr_u (local.get $e) (i32.const 16))
            (i32.and (i32.wrap_i64 (local.get $bb)) (i32.sub (i32.shl (i32.const 1) (local.get $x)) (i32.const 1)))) (i32.const 1)))
          (local.set $bb (i64.shr_u (local.get $bb) (i64.extend_i32_u (local.get $x))))
          (local.set $bc (i32.sub (local.get $bc) (local.get $x)))
          (if (i32.gt_u (local.get $d) (i32.sub (local.get $out) (local.get $hist)))
            (then (local.set $status (i32.const 5)) (br $exit)))
          (local.set $out (call $copy (local.get $out) (local.get $d) (i32.shl (local.get $len) (i32.const 1))))
          (br $slow))
        ;; The input ends inside this unit: back to its start.
        (local.set $in (local.get $sIn))
        (local.set $bb (local.get $sBb))
        (local.set $bc (local.get $sBc))
        (local.set $status (i32.const 2))))

    (local.set $p (i32.sub (i32.shl (local.get $in) (i32.const 3)) (local.get $bc)))
    (i32.store (i32.const 0) (i32.shr_u (local.get $p) (i32.const 3)))
    (i32.store (i32.const 4) (i32.and (local.get $p) (i32.const 7)))
    (i32.store (i32.const 8) (local.get $out))
    (local.get $status))

  ;; ---------------------------------------------------------------------------------
  ;; lastMarker(from, to) -> the byte address of the last marker (a symbol >= 256) in
  ;; [from, to) (2-byte symbols, both addresses even), or -1. Scans backwards 4 symbols
  ;; at a time.
  (func (export "lastMarker") (param $from i32) (param $to i32) (result i32)
    (local $p i32)
    (local.set $p (local.get $to))
    (block $done
      (loop $l8
        (br_if $done (i32.lt_u (i32.sub (local.get $p) (local.get $from)) (i32.const 8)))
        (local.set $p (i32.sub (local.get $p) (i32.const 8)))
        (br_if $l8 (i64.eqz (i64.and (i64.load (local.get $p)) (i64.const 0xff00ff00ff00ff00))))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $done)))
    (block $none
      (loop $l1
        (br_if $none (i32.le_u (local.get $p) (local.get $from)))
        (local.set $p (i32.sub (local.get $p) (i32.const 2)))
        (br_if $l1 (i32.lt_u (i32.load16_u (local.get $p)) (i32.const 256)))
        (return (local.get $p))))
    (i32.const -1))

  ;; widen(dst, src, n): n bytes at src as n 16-bit symbols at dst (a stored block in
  ;; marker mode). dst and src do not overlap.
  (func (export "widen") (param $dst i32) (param $src i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $src) (local.get $n)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (i32.store16 (local.get $dst) (i32.load8_u (local.get $src)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 2)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (br $l))))

  ;; scan(p, to, end) -> the first bit address in [p, to) where a candidate block header
  ;; may start, or -1: bit addresses are byte address * 8 + bit (LSB first), `end` the
  ;; input's end. The prefilter of lib/parallel/deflate-boundary.ts, which then reads the
  ;; header whole: BFINAL 0, and either BTYPE 00 (stored) with the padding to the byte
  ;; boundary zero and LEN the complement of NLEN within the input, or BTYPE 10 (dynamic)
  ;; with HLIT <= 29, HDIST <= 29 and a complete code length code (Kraft sum 1). Reads up
  ;; to 11 bytes past `end` (the caller's zeros).
  (func (export "scan") (param $p i32) (param $to i32) (param $end i32) (result i32)
    (local $v i64) (local $x i32) (local $q i32) (local $n i32) (local $sum i32) (local $len i32)
    (block $none
      (loop $next
        (br_if $none (i32.ge_u (local.get $p) (local.get $to)))
        (local.set $v (i64.shr_u (i64.load (i32.shr_u (local.get $p) (i32.const 3))) (i64.extend_i32_u (i32.and (local.get $p) (i32.const 7)))))
        (local.set $x (i32.wrap_i64 (local.get $v)))
        (block $no
          (if (i32.eqz (i32.and (local.get $x) (i32.const 7)))
            (then
              ;; Stored: the padding bits, then LEN and NLEN at byte q.
              (local.set $q (i32.shr_u (i32.add (local.get $p) (i32.const 10)) (i32.const 3)))
              (br_if $no (i32.and (i32.shr_u (local.get $x) (i32.const 3))
                (i32.sub (i32.shl (i32.const 1) (i32.and (i32.sub (i32.const 5) (i32.and (local.get $p) (i32.const 7))) (i32.const 7))) (i32.const 1))))
              (br_if $no (i32.gt_u (i32.add (i32.shl (local.get $q) (i32.const 3)) (i32.const 32)) (local.get $end)))
              (br_if $no (i32.ne (i32.xor (i32.load16_u (local.get $q)) (i32.load16_u offset=2 (local.get $q))) (i32.const 0xffff)))
              (return (local.get $p))))
          (br_if $no (i32.ne (i32.and (local.get $x) (i32.const 7)) (i32.const 4)))
          (br_if $no (i32.gt_u (i32.and (i32.shr_u (local.get $x) (i32.const 3)) (i32.const 31)) (i32.const 29)))
          (br_if $no (i32.gt_u (i32.and (i32.shr_u (local.get $x) (i32.const 8)) (i32.const 31)) (i32.const 29)))
          ;; HCLEN + 4 lengths of 3 bits from bit 17: at most 57 bits, from a second load.
          (local.set $n (i32.add (i32.and (i32.shr_u (local.get $x) (i32.const 13)) (i32.const 15)) (i32.const 4)))
          (local.set $q (i32.add (local.get $p) (i32.const 17)))
          (local.set $v (i64.shr_u (i64.load (i32.shr_u (local.get $q) (i32.const 3))) (i64.extend_i32_u (i32.and (local.get $q) (i32.const 7)))))
          (local.set $sum (i32.const 0))
          (loop $lens
            (local.set $len (i32.and (i32.wrap_i64 (local.get $v)) (i32.const 7)))
            (local.set $v (i64.shr_u (local.get $v) (i64.const 3)))
            (if (local.get $len)
              (then
                (local.set $sum (i32.add (local.get $sum) (i32.shr_u (i32.const 128) (local.get $len))))
                (br_if $no (i32.gt_u (local.get $sum) (i32.const 128)))))
            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
            (br_if $lens (local.get $n)))
          (if (i32.eq (local.get $sum) (i32.const 128)) (then (return (local.get $p)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (i32.const -1))

  ;; resolve(dst, src, n, win, shift) -> 0, or -1 when a marker points before the
  ;; window's start: n 16-bit symbols at src as n bytes at dst, a literal as itself and
  ;; marker 256 + j as the byte at win + j (j >= shift: the window's bytes are
  ;; [win + shift, win + 32768)). dst may be src (each byte is written after its symbol
  ;; is read, and never ahead of it).
  (func (export "resolve") (param $dst i32) (param $src i32) (param $n i32) (param $win i32) (param $shift i32) (result i32)
    (local $end i32) (local $s i32)
    (local.set $end (i32.add (local.get $dst) (local.get $n)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end)))
        (local.set $s (i32.load16_u (local.get $src)))
        (if (i32.ge_u (local.get $s) (i32.const 256))
          (then
            (local.set $s (i32.sub (local.get $s) (i32.const 256)))
            (if (i32.lt_u (local.get $s) (local.get $shift)) (then (return (i32.const -1))))
            (local.set $s (i32.load8_u (i32.add (local.get $win) (local.get $s))))))
        (i32.store8 (local.get $dst) (local.get $s))
        (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
        (local.set $src (i32.add (local.get $src) (i32.const 2)))
        (br $l)))
    (i32.const 0))

  ;; narrow(dst, src, n): n 16-bit symbols at src, all < 256, as n bytes at dst.
  (func (export "narrow") (param $dst i32) (param $src i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $dst) (local.get $n)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end)))
        (i32.store8 (local.get $dst) (i32.load16_u (local.get $src)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
        (local.set $src (i32.add (local.get $src) (i32.const 2)))
        (br $l))))
)
