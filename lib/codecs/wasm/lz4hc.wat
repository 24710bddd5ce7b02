;; sluice's LZ4 HC kernel: the block compressor of LZ4 levels 3 to 12, hand-written
;; WebAssembly. The same steps and the same bytes as lib/codecs/lz4hc-search.ts and
;; lz4hc-block.ts (the TypeScript engine's, which document the method), which write the
;; blocks of the reference's `lz4 -3` ... `lz4 -12` (lz4 1.9.4) for independent blocks;
;; both are checked against each other and against the lz4 CLI by test/lz4hc.test.ts.
;; Assembled by `node scripts/build-wasm-kernels.mjs` (npm `wabt`) into gen/lz4hc.wasm and
;; gen/lz4hc.b64.ts. Loaded only when an encoder asks for a level >= 3
;; (lib/codecs/lz4hc-wasm.ts), it works in the memory of the LZ4 kernel's encoder
;; instance (imported as env.memory), where the frame encoder stages its blocks.
;;
;; compress(src, srcEnd, dst, dstEnd, work, level) compresses [src, srcEnd) into
;; [dst, dstEnd) with its tables in [work, work + 327728):
;;
;;     [work, +128 KiB)          hash table: newest index of each 15-bit hash (u32)
;;     [work + 128 KiB, +128 KiB) chain: distance back to the previous index with the
;;                                same hash, per index mod 2^16 (u16)
;;     [work + 256 KiB, +65584)  the optimal parser's positions (levels 10-12), 16 bytes
;;                                each: price, match length (1: literal), offset,
;;                                literal run (i32)
;;
;; Indices: src[p] has index p - src + 65536 (the cleared hash table's zeros are out of
;; reach). Returns the compressed size, -1 when the output does not fit (with the
;; reference's room checks), -4 for a level outside 3..12 or a range outside memory.
;;
;; Safety contract: the ranges are checked against the memory size first; reads stay
;; inside [src, srcEnd) and writes inside [dst, dstEnd) and the work area (a sequence is
;; written only after its room check, which leaves 8 bytes for the wild literal copy).
;; Memory is capped at 2 GiB, so addresses and lengths stay below 2^31.
;;
;; Features: MVP + bulk memory (memory.copy / memory.fill), like lz4.wat. One import:
;; the memory.
(module
  (import "env" "memory" (memory 1 32768))

  ;; The block being compressed (set by compress, read by the helpers).
  (global $src (mut i32) (i32.const 0))
  ;; Index of src[p] is p + delta.
  (global $delta (mut i32) (i32.const 0))
  (global $hashT (mut i32) (i32.const 0))
  (global $chainT (mut i32) (i32.const 0))
  (global $opt (mut i32) (i32.const 0))
  ;; Next index to insert into the chain.
  (global $next (mut i32) (i32.const 0))
  (global $op (mut i32) (i32.const 0))
  (global $anchor (mut i32) (i32.const 0))
  (global $dstEnd (mut i32) (i32.const 0))
  ;; Results of $widerMatch: where the match refers to, where it starts.
  (global $matchPos (mut i32) (i32.const 0))
  (global $startPos (mut i32) (i32.const 0))

  ;; Adds the positions before p to the chain (distances capped at 65535: out of reach).
  (func $insert (param $p i32)
    (local $idx i32) (local $target i32) (local $slot i32) (local $d i32)
    (local $delta i32) (local $hashT i32) (local $chainT i32)
    ;; The globals in locals: the loop runs once per input byte.
    (local.set $delta (global.get $delta))
    (local.set $hashT (global.get $hashT))
    (local.set $chainT (global.get $chainT))
    (local.set $target (i32.add (local.get $p) (local.get $delta)))
    (local.set $idx (global.get $next))
    (if (i32.lt_u (local.get $idx) (local.get $target))
      (then
        (loop $each
          (local.set $slot
            (i32.add (local.get $hashT)
                     (i32.shl (i32.shr_u (i32.mul (i32.load (i32.sub (local.get $idx) (local.get $delta))) (i32.const 0x9e3779b1)) (i32.const 17)) (i32.const 2))))
          (local.set $d (i32.sub (local.get $idx) (i32.load (local.get $slot))))
          (if (i32.gt_u (local.get $d) (i32.const 65535)) (then (local.set $d (i32.const 65535))))
          (i32.store16
            (i32.add (local.get $chainT) (i32.shl (i32.and (local.get $idx) (i32.const 0xffff)) (i32.const 1)))
            (local.get $d))
          (i32.store (local.get $slot) (local.get $idx))
          (local.set $idx (i32.add (local.get $idx) (i32.const 1)))
          (br_if $each (i32.lt_u (local.get $idx) (local.get $target))))
        (global.set $next (local.get $target)))))

  ;; Bytes equal to `byte` from p on, stopping at limit.
  (func $run (param $p i32) (param $limit i32) (param $byte i32) (result i32)
    (local $from i32) (local $pattern i64) (local $diff i64)
    (local.set $from (local.get $p))
    (local.set $pattern (i64.mul (i64.extend_i32_u (local.get $byte)) (i64.const 0x0101010101010101)))
    (block $done
      (block $tail
        (loop $wide
          (br_if $tail (i32.gt_s (i32.add (local.get $p) (i32.const 8)) (local.get $limit)))
          (local.set $diff (i64.xor (i64.load (local.get $p)) (local.get $pattern)))
          (if (i64.ne (local.get $diff) (i64.const 0))
            (then
              (local.set $p (i32.add (local.get $p) (i32.wrap_i64 (i64.shr_u (i64.ctz (local.get $diff)) (i64.const 3)))))
              (br $done)))
          (local.set $p (i32.add (local.get $p) (i32.const 8)))
          (br $wide)))
      (loop $narrow
        (br_if $done (i32.ge_s (local.get $p) (local.get $limit)))
        (br_if $done (i32.ne (i32.load8_u (local.get $p)) (local.get $byte)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $narrow)))
    (i32.sub (local.get $p) (local.get $from)))

  ;; Bytes equal to `byte` right before p, stopping at low.
  (func $runBack (param $p i32) (param $low i32) (param $byte i32) (result i32)
    (local $from i32) (local $pattern i64) (local $diff i64)
    (local.set $from (local.get $p))
    (local.set $pattern (i64.mul (i64.extend_i32_u (local.get $byte)) (i64.const 0x0101010101010101)))
    (block $done
      (block $tail
        (loop $wide
          (br_if $tail (i32.lt_s (i32.sub (local.get $p) (i32.const 8)) (local.get $low)))
          (local.set $diff (i64.xor (i64.load (i32.sub (local.get $p) (i32.const 8))) (local.get $pattern)))
          (if (i64.ne (local.get $diff) (i64.const 0))
            (then
              ;; The byte nearest p is the highest (little-endian).
              (local.set $p (i32.sub (local.get $p) (i32.wrap_i64 (i64.shr_u (i64.clz (local.get $diff)) (i64.const 3)))))
              (br $done)))
          (local.set $p (i32.sub (local.get $p) (i32.const 8)))
          (br $wide)))
      (loop $narrow
        (br_if $done (i32.le_s (local.get $p) (local.get $low)))
        (br_if $done (i32.ne (i32.load8_u (i32.sub (local.get $p) (i32.const 1))) (local.get $byte)))
        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
        (br $narrow)))
    (i32.sub (local.get $from) (local.get $p)))

  ;; ---------------------------------------------------------------------------------
  ;; widerMatch(ip, iLow, iHigh, longest, attempts, runs, chainSwap) -> longest
  ;;
  ;; Searches the chain of ip for a match longer than `longest` that may start as far
  ;; back as iLow and ends by iHigh, over at most `attempts` candidates; the best one's
  ;; start and source go to $startPos and $matchPos. `runs`: skip through runs of one
  ;; byte value; `chainSwap`: follow the chain of a later position inside the best match
  ;; (forward searches, iLow = ip). lz4hc-search.ts `widerMatch` step by step.
  (func $widerMatch
    (param $ip i32) (param $iLow i32) (param $iHigh i32) (param $longest i32)
    (param $attempts i32) (param $runs i32) (param $chainSwap i32)
    (result i32)
    (local $ipIndex i32) (local $lowest i32) (local $lookBack i32) (local $pattern i32)
    (local $chainPos i32) (local $repeat i32) (local $srcRun i32) (local $matchIndex i32)
    (local $length i32) (local $m i32) (local $back i32) (local $maxBack i32)
    (local $farthest i32) (local $end i32) (local $accel i32) (local $pos i32) (local $step i32)
    (local $d i32) (local $c i32) (local $cp i32) (local $byte i32) (local $forward i32)
    (local $backward i32) (local $segment i32) (local $ml i32)
    (local $a i32) (local $b i32) (local $diff i64)
    (local $delta i32) (local $chainT i32) (local $src i32) (local $tail i32) (local $tailAt i32)

    (local.set $delta (global.get $delta))
    (local.set $chainT (global.get $chainT))
    (local.set $src (global.get $src))
    (local.set $ipIndex (i32.add (local.get $ip) (local.get $delta)))
    ;; max(ipIndex - 65535, 65536): offsets reach back at most 65535, and not before src.
    (local.set $lowest
      (select (i32.sub (local.get $ipIndex) (i32.const 65535)) (i32.const 0x10000)
              (i32.gt_u (local.get $ipIndex) (i32.const 0x1ffff))))
    (local.set $lookBack (i32.sub (local.get $ip) (local.get $iLow)))
    (local.set $pattern (i32.load (local.get $ip)))
    (call $insert (local.get $ip))
    (local.set $matchIndex
      (i32.load (i32.add (global.get $hashT) (i32.shl (i32.shr_u (i32.mul (i32.load (local.get $ip)) (i32.const 0x9e3779b1)) (i32.const 17)) (i32.const 2)))))
    ;; The current length's last two bytes, and where a candidate m has them: m + tailAt.
    (local.set $tail (i32.load16_u (i32.sub (i32.add (local.get $iLow) (local.get $longest)) (i32.const 1))))
    (local.set $tailAt (i32.sub (i32.sub (local.get $longest) (i32.const 1)) (local.get $lookBack)))
    (block $exit
      (loop $candidates
        (br_if $exit (i32.or (i32.lt_u (local.get $matchIndex) (local.get $lowest)) (i32.eqz (local.get $attempts))))
        (local.set $attempts (i32.sub (local.get $attempts) (i32.const 1)))
        (local.set $length (i32.const 0))
        (local.set $m (i32.sub (local.get $matchIndex) (local.get $delta)))
        ;; Only a candidate that agrees at the current length's last two bytes can be
        ;; longer; then its first 4 bytes.
        (if (i32.eq (local.get $tail) (i32.load16_u (i32.add (local.get $m) (local.get $tailAt))))
          (then
            (if (i32.eq (i32.load (local.get $m)) (local.get $pattern))
              (then
                ;; Extend backwards (as far as iLow and src), then forwards.
                (local.set $back (i32.const 0))
                (if (local.get $lookBack)
                  (then
                    (local.set $maxBack (i32.sub (local.get $m) (local.get $src)))
                    (if (i32.lt_s (local.get $lookBack) (local.get $maxBack)) (then (local.set $maxBack (local.get $lookBack))))
                    (block $backDone
                      (loop $backLoop
                        (br_if $backDone (i32.ge_s (local.get $back) (local.get $maxBack)))
                        (br_if $backDone
                          (i32.ne (i32.load8_u (i32.sub (i32.sub (local.get $ip) (local.get $back)) (i32.const 1)))
                                  (i32.load8_u (i32.sub (i32.sub (local.get $m) (local.get $back)) (i32.const 1)))))
                        (local.set $back (i32.add (local.get $back) (i32.const 1)))
                        (br $backLoop)))))
                ;; Forwards: 8 bytes at a time, then one at a time before iHigh.
                (local.set $a (i32.add (local.get $ip) (i32.const 4)))
                (local.set $b (i32.add (local.get $m) (i32.const 4)))
                (block $counted
                  (block $tail
                    (loop $wide
                      (br_if $tail (i32.gt_s (i32.add (local.get $a) (i32.const 8)) (local.get $iHigh)))
                      (local.set $diff (i64.xor (i64.load (local.get $a)) (i64.load (local.get $b))))
                      (if (i64.ne (local.get $diff) (i64.const 0))
                        (then
                          ;; The first differing byte, from the lowest set bit (little-endian).
                          (local.set $a (i32.add (local.get $a) (i32.wrap_i64 (i64.shr_u (i64.ctz (local.get $diff)) (i64.const 3)))))
                          (br $counted)))
                      (local.set $a (i32.add (local.get $a) (i32.const 8)))
                      (local.set $b (i32.add (local.get $b) (i32.const 8)))
                      (br $wide)))
                  (loop $narrow
                    (br_if $counted (i32.ge_s (local.get $a) (local.get $iHigh)))
                    (br_if $counted (i32.ne (i32.load8_u (local.get $a)) (i32.load8_u (local.get $b))))
                    (local.set $a (i32.add (local.get $a) (i32.const 1)))
                    (local.set $b (i32.add (local.get $b) (i32.const 1)))
                    (br $narrow)))
                (local.set $length (i32.add (i32.sub (local.get $a) (local.get $ip)) (local.get $back)))
                (if (i32.gt_s (local.get $length) (local.get $longest))
                  (then
                    (local.set $longest (local.get $length))
                    (local.set $tail (i32.load16_u (i32.sub (i32.add (local.get $iLow) (local.get $longest)) (i32.const 1))))
                    (local.set $tailAt (i32.sub (i32.sub (local.get $longest) (i32.const 1)) (local.get $lookBack)))
                    (global.set $matchPos (i32.sub (local.get $m) (local.get $back)))
                    (global.set $startPos (i32.sub (local.get $ip) (local.get $back)))))))))

        ;; Chain swap: of the positions inside the match, follow the one whose previous
        ;; occurrence is farthest back.
        (if (local.get $chainSwap)
          (then
            (if (i32.and (i32.eq (local.get $length) (local.get $longest))
                         (i32.le_u (i32.add (local.get $matchIndex) (local.get $longest)) (local.get $ipIndex)))
              (then
                (local.set $farthest (i32.const 1))
                (local.set $end (i32.sub (local.get $longest) (i32.const 3)))
                (local.set $accel (i32.const 16))
                (local.set $pos (i32.const 0))
                (block $scanned
                  (loop $scan
                    (br_if $scanned (i32.ge_s (local.get $pos) (local.get $end)))
                    (local.set $d (i32.load16_u (i32.add (local.get $chainT) (i32.shl (i32.and (i32.add (local.get $matchIndex) (local.get $pos)) (i32.const 0xffff)) (i32.const 1)))))
                    (local.set $step (i32.shr_u (local.get $accel) (i32.const 4)))
                    (local.set $accel (i32.add (local.get $accel) (i32.const 1)))
                    (if (i32.gt_u (local.get $d) (local.get $farthest))
                      (then
                        (local.set $farthest (local.get $d))
                        (local.set $chainPos (local.get $pos))
                        (local.set $accel (i32.const 16))))
                    (local.set $pos (i32.add (local.get $pos) (local.get $step)))
                    (br $scan)))
                (if (i32.gt_u (local.get $farthest) (i32.const 1))
                  (then
                    (br_if $exit (i32.gt_u (local.get $farthest) (local.get $matchIndex)))
                    (local.set $matchIndex (i32.sub (local.get $matchIndex) (local.get $farthest)))
                    (br $candidates)))))))

        ;; Runs of one byte value: the previous candidate is 1 byte back.
        (if (i32.and (i32.and (local.get $runs) (i32.eqz (local.get $chainPos)))
                     (i32.eq (i32.load16_u (i32.add (local.get $chainT) (i32.shl (i32.and (local.get $matchIndex) (i32.const 0xffff)) (i32.const 1)))) (i32.const 1)))
          (then
            (if (i32.eqz (local.get $repeat))
              (then
                (if (i32.eq (local.get $pattern) (i32.mul (i32.and (local.get $pattern) (i32.const 0xff)) (i32.const 0x01010101)))
                  (then
                    (local.set $repeat (i32.const 2))
                    (local.set $srcRun
                      (i32.add (i32.const 4)
                               (call $run (i32.add (local.get $ip) (i32.const 4)) (local.get $iHigh) (i32.and (local.get $pattern) (i32.const 0xff))))))
                  (else (local.set $repeat (i32.const 1))))))
            (local.set $c (i32.sub (local.get $matchIndex) (i32.const 1)))
            (if (i32.and (i32.eq (local.get $repeat) (i32.const 2)) (i32.ge_u (local.get $c) (local.get $lowest)))
              (then
                (local.set $cp (i32.sub (local.get $c) (local.get $delta)))
                (if (i32.eq (i32.load (local.get $cp)) (local.get $pattern))
                  (then
                    (local.set $byte (i32.and (local.get $pattern) (i32.const 0xff)))
                    (local.set $forward
                      (i32.add (i32.const 4) (call $run (i32.add (local.get $cp) (i32.const 4)) (local.get $iHigh) (local.get $byte))))
                    (local.set $backward (call $runBack (local.get $cp) (local.get $src) (local.get $byte)))
                    (if (i32.gt_u (local.get $backward) (i32.sub (local.get $c) (local.get $lowest)))
                      (then (local.set $backward (i32.sub (local.get $c) (local.get $lowest)))))
                    (local.set $segment (i32.add (local.get $backward) (local.get $forward)))
                    (if (i32.and (i32.ge_u (local.get $segment) (local.get $srcRun)) (i32.le_u (local.get $forward) (local.get $srcRun)))
                      (then
                        ;; The candidate's run is at least ip's: take its part that ends
                        ;; where it ends (more matching bytes may follow).
                        (local.set $matchIndex (i32.sub (i32.add (local.get $c) (local.get $forward)) (local.get $srcRun))))
                      (else
                        (local.set $matchIndex (i32.sub (local.get $c) (local.get $backward)))
                        (if (i32.eqz (local.get $lookBack))
                          (then
                            (local.set $ml (select (local.get $segment) (local.get $srcRun) (i32.lt_u (local.get $segment) (local.get $srcRun))))
                            (if (i32.lt_s (local.get $longest) (local.get $ml))
                              (then
                                (br_if $exit (i32.gt_u (i32.sub (local.get $ipIndex) (local.get $matchIndex)) (i32.const 65535)))
                                (local.set $longest (local.get $ml))
                                (local.set $tail (i32.load16_u (i32.sub (i32.add (local.get $iLow) (local.get $longest)) (i32.const 1))))
                                (local.set $tailAt (i32.sub (i32.sub (local.get $longest) (i32.const 1)) (local.get $lookBack)))
                                (global.set $matchPos (i32.sub (local.get $matchIndex) (local.get $delta)))
                                (global.set $startPos (local.get $ip))))
                            (local.set $d (i32.load16_u (i32.add (local.get $chainT) (i32.shl (i32.and (local.get $matchIndex) (i32.const 0xffff)) (i32.const 1)))))
                            (br_if $exit (i32.gt_u (local.get $d) (local.get $matchIndex)))
                            (local.set $matchIndex (i32.sub (local.get $matchIndex) (local.get $d)))))))
                    (br $candidates)))))))

        (local.set $matchIndex
          (i32.sub (local.get $matchIndex) (i32.load16_u (i32.add (local.get $chainT) (i32.shl (i32.and (i32.add (local.get $matchIndex) (local.get $chainPos)) (i32.const 0xffff)) (i32.const 1))))))
        (br $candidates)))
    (local.get $longest))

  ;; Length bytes for the rest `n` of a length (after the nibble's 15): 255 while
  ;; n >= 255, then n. Returns the address after them.
  (func $lengthBytes (param $op i32) (param $n i32) (result i32)
    (local $count i32)
    (local.set $count (i32.div_u (local.get $n) (i32.const 255)))
    (memory.fill (local.get $op) (i32.const 255) (local.get $count))
    (local.set $op (i32.add (local.get $op) (local.get $count)))
    (i32.store8 (local.get $op) (i32.sub (local.get $n) (i32.mul (local.get $count) (i32.const 255))))
    (i32.add (local.get $op) (i32.const 1)))

  ;; Writes the sequence of the literals since $anchor and the match [ip, ip + ml) from
  ;; ref. Returns 0 when the room check fails (the literals, their length bytes and 8
  ;; more; then the match length bytes and 6 more), else 1.
  (func $sequence (param $ip i32) (param $ml i32) (param $ref i32) (result i32)
    (local $op i32) (local $ll i32) (local $token i32) (local $n i32) (local $from i32)
    (local.set $op (global.get $op))
    (local.set $from (global.get $anchor))
    (local.set $ll (i32.sub (local.get $ip) (local.get $from)))
    (if (i32.gt_s
          (i32.add (i32.add (local.get $op) (i32.div_u (local.get $ll) (i32.const 255))) (i32.add (local.get $ll) (i32.const 8)))
          (global.get $dstEnd))
      (then (return (i32.const 0))))
    (local.set $token (local.get $op))
    (local.set $op (i32.add (local.get $op) (i32.const 1)))
    (if (i32.ge_u (local.get $ll) (i32.const 15))
      (then
        (i32.store8 (local.get $token) (i32.const 0xf0))
        (local.set $op (call $lengthBytes (local.get $op) (i32.sub (local.get $ll) (i32.const 15)))))
      (else (i32.store8 (local.get $token) (i32.shl (local.get $ll) (i32.const 4)))))
    ;; Up to 16 literals as two 8-byte words: the room check left 8 bytes after them in
    ;; dst, and ip <= srcEnd - 12 bounds the reads.
    (if (i32.le_u (local.get $ll) (i32.const 16))
      (then
        (i64.store (local.get $op) (i64.load (local.get $from)))
        (if (i32.gt_u (local.get $ll) (i32.const 8))
          (then (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $from))))))
      (else (memory.copy (local.get $op) (local.get $from) (local.get $ll))))
    (local.set $op (i32.add (local.get $op) (local.get $ll)))
    (i32.store16 (local.get $op) (i32.sub (local.get $ip) (local.get $ref)))
    (local.set $op (i32.add (local.get $op) (i32.const 2)))
    (local.set $n (i32.sub (local.get $ml) (i32.const 4)))
    (if (i32.gt_s
          (i32.add (i32.add (local.get $op) (i32.div_u (local.get $n) (i32.const 255))) (i32.const 6))
          (global.get $dstEnd))
      (then (return (i32.const 0))))
    (if (i32.ge_u (local.get $n) (i32.const 15))
      (then
        (i32.store8 (local.get $token) (i32.or (i32.load8_u (local.get $token)) (i32.const 15)))
        (local.set $op (call $lengthBytes (local.get $op) (i32.sub (local.get $n) (i32.const 15)))))
      (else (i32.store8 (local.get $token) (i32.or (i32.load8_u (local.get $token)) (local.get $n)))))
    (global.set $op (local.get $op))
    (global.set $anchor (i32.add (local.get $ip) (local.get $ml)))
    (i32.const 1))

  ;; Writes the last literals [$anchor, end); 0 when they do not fit, else 1.
  (func $lastLiterals (param $end i32) (result i32)
    (local $op i32) (local $n i32)
    (local.set $op (global.get $op))
    (local.set $n (i32.sub (local.get $end) (global.get $anchor)))
    (if (i32.gt_s
          (i32.add (i32.add (local.get $op) (i32.const 1))
                   (i32.add (local.get $n) (i32.div_u (i32.add (local.get $n) (i32.const 240)) (i32.const 255))))
          (global.get $dstEnd))
      (then (return (i32.const 0))))
    (if (i32.ge_u (local.get $n) (i32.const 15))
      (then
        (i32.store8 (local.get $op) (i32.const 0xf0))
        (local.set $op (call $lengthBytes (i32.add (local.get $op) (i32.const 1)) (i32.sub (local.get $n) (i32.const 15)))))
      (else
        (i32.store8 (local.get $op) (i32.shl (local.get $n) (i32.const 4)))
        (local.set $op (i32.add (local.get $op) (i32.const 1)))))
    (memory.copy (local.get $op) (global.get $anchor) (local.get $n))
    (global.set $op (i32.add (local.get $op) (local.get $n)))
    (i32.const 1))

  ;; ---------------------------------------------------------------------------------
  ;; Levels 3-9: lazy matching over the chain, up to three overlapping matches in flight
  ;; (lz4hc-block.ts `hashChain`, the same steps). Returns 0 on output overflow.
  (func $hashChain (param $srcEnd i32) (param $searches i32) (result i32)
    (local $runs i32) (local $mfLimit i32) (local $matchLimit i32) (local $ip i32)
    (local $ml i32) (local $ref i32) (local $start0 i32) (local $ref0 i32) (local $ml0 i32)
    (local $start2 i32) (local $ref2 i32) (local $ml2 i32)
    (local $start3 i32) (local $ref3 i32) (local $ml3 i32)
    (local $stage i32) (local $newMl i32) (local $correction i32)
    (local.set $runs (i32.gt_u (local.get $searches) (i32.const 128)))
    (local.set $mfLimit (i32.sub (local.get $srcEnd) (i32.const 12)))
    (local.set $matchLimit (i32.sub (local.get $srcEnd) (i32.const 5)))
    (local.set $ip (global.get $src))
    (if (i32.lt_s (i32.sub (local.get $srcEnd) (local.get $ip)) (i32.const 13)) (then (return (i32.const 1))))
    (block $end
      (loop $main
        (br_if $end (i32.gt_s (local.get $ip) (local.get $mfLimit)))
        (local.set $ml
          (call $widerMatch (local.get $ip) (local.get $ip) (local.get $matchLimit) (i32.const 3)
                            (local.get $searches) (local.get $runs) (i32.const 0)))
        (if (i32.lt_s (local.get $ml) (i32.const 4))
          (then
            (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
            (br $main)))
        (local.set $ref (global.get $matchPos))
        (local.set $start0 (local.get $ip))
        (local.set $ref0 (local.get $ref))
        (local.set $ml0 (local.get $ml))
        (local.set $stage (i32.const 2))
        (loop $step
          (block $search3
            (br_if $search3 (i32.ne (local.get $stage) (i32.const 2)))
            ;; Match 2: a longer one starting inside match 1.
            (if (i32.le_s (i32.add (local.get $ip) (local.get $ml)) (local.get $mfLimit))
              (then
                (local.set $ml2
                  (call $widerMatch (i32.sub (i32.add (local.get $ip) (local.get $ml)) (i32.const 2)) (local.get $ip)
                                    (local.get $matchLimit) (local.get $ml) (local.get $searches) (local.get $runs) (i32.const 0)))
                (local.set $start2 (global.get $startPos))
                (local.set $ref2 (global.get $matchPos)))
              (else (local.set $ml2 (local.get $ml))))
            (if (i32.eq (local.get $ml2) (local.get $ml))
              (then
                ;; None longer: write match 1.
                (if (i32.eqz (call $sequence (local.get $ip) (local.get $ml) (local.get $ref))) (then (return (i32.const 0))))
                (local.set $ip (i32.add (local.get $ip) (local.get $ml)))
                (br $main)))
            (if (i32.and (i32.lt_s (local.get $start0) (local.get $ip))
                         (i32.lt_s (local.get $start2) (i32.add (local.get $ip) (local.get $ml0))))
              (then
                ;; Match 1 was moved forward and match 2 starts inside the original: restore it.
                (local.set $ip (local.get $start0))
                (local.set $ref (local.get $ref0))
                (local.set $ml (local.get $ml0))))
            (if (i32.lt_s (i32.sub (local.get $start2) (local.get $ip)) (i32.const 3))
              (then
                ;; Match 1 would be too short before match 2: match 2 replaces it.
                (local.set $ml (local.get $ml2))
                (local.set $ip (local.get $start2))
                (local.set $ref (local.get $ref2))
                (br $step)))
            (local.set $stage (i32.const 3)))
          ;; Match 2 is longer than match 1 and starts at least 3 bytes after it. Keep
          ;; match 1 up to 18 bytes, match 2 after it.
          (if (i32.lt_s (i32.sub (local.get $start2) (local.get $ip)) (i32.const 18))
            (then
              (local.set $newMl (select (i32.const 18) (local.get $ml) (i32.gt_s (local.get $ml) (i32.const 18))))
              (if (i32.gt_s (i32.add (local.get $ip) (local.get $newMl))
                            (i32.sub (i32.add (local.get $start2) (local.get $ml2)) (i32.const 4)))
                (then
                  (local.set $newMl
                    (i32.sub (i32.add (i32.sub (local.get $start2) (local.get $ip)) (local.get $ml2)) (i32.const 4)))))
              (local.set $correction (i32.sub (local.get $newMl) (i32.sub (local.get $start2) (local.get $ip))))
              (if (i32.gt_s (local.get $correction) (i32.const 0))
                (then
                  (local.set $start2 (i32.add (local.get $start2) (local.get $correction)))
                  (local.set $ref2 (i32.add (local.get $ref2) (local.get $correction)))
                  (local.set $ml2 (i32.sub (local.get $ml2) (local.get $correction)))))))
          ;; Match 3: a longer one starting inside match 2.
          (if (i32.le_s (i32.add (local.get $start2) (local.get $ml2)) (local.get $mfLimit))
            (then
              (local.set $ml3
                (call $widerMatch (i32.sub (i32.add (local.get $start2) (local.get $ml2)) (i32.const 3)) (local.get $start2)
                                  (local.get $matchLimit) (local.get $ml2) (local.get $searches) (local.get $runs) (i32.const 0)))
              (local.set $start3 (global.get $startPos))
              (local.set $ref3 (global.get $matchPos)))
            (else (local.set $ml3 (local.get $ml2))))
          (if (i32.eq (local.get $ml3) (local.get $ml2))
            (then
              ;; None: write match 1 (cut where match 2 starts) and match 2.
              (if (i32.lt_s (local.get $start2) (i32.add (local.get $ip) (local.get $ml)))
                (then (local.set $ml (i32.sub (local.get $start2) (local.get $ip)))))
              (if (i32.eqz (call $sequence (local.get $ip) (local.get $ml) (local.get $ref))) (then (return (i32.const 0))))
              (local.set $ip (local.get $start2))
              (if (i32.eqz (call $sequence (local.get $ip) (local.get $ml2) (local.get $ref2))) (then (return (i32.const 0))))
              (local.set $ip (i32.add (local.get $ip) (local.get $ml2)))
              (br $main)))
          (if (i32.lt_s (local.get $start3) (i32.add (i32.add (local.get $ip) (local.get $ml)) (i32.const 3)))
            (then
              ;; Match 3 leaves no room for match 2.
              (if (i32.ge_s (local.get $start3) (i32.add (local.get $ip) (local.get $ml)))
                (then
                  ;; Match 3 starts after match 1: write match 1; match 3 becomes match 1,
                  ;; what is left of match 2 the fallback.
                  (if (i32.lt_s (local.get $start2) (i32.add (local.get $ip) (local.get $ml)))
                    (then
                      (local.set $correction (i32.sub (i32.add (local.get $ip) (local.get $ml)) (local.get $start2)))
                      (local.set $start2 (i32.add (local.get $start2) (local.get $correction)))
                      (local.set $ref2 (i32.add (local.get $ref2) (local.get $correction)))
                      (local.set $ml2 (i32.sub (local.get $ml2) (local.get $correction)))
                      (if (i32.lt_s (local.get $ml2) (i32.const 4))
                        (then
                          (local.set $start2 (local.get $start3))
                          (local.set $ref2 (local.get $ref3))
                          (local.set $ml2 (local.get $ml3))))))
                  (if (i32.eqz (call $sequence (local.get $ip) (local.get $ml) (local.get $ref))) (then (return (i32.const 0))))
                  (local.set $ip (local.get $start3))
                  (local.set $ref (local.get $ref3))
                  (local.set $ml (local.get $ml3))
                  (local.set $start0 (local.get $start2))
                  (local.set $ref0 (local.get $ref2))
                  (local.set $ml0 (local.get $ml2))
                  (local.set $stage (i32.const 2))
                  (br $step)))
              ;; Match 3 overlaps match 1: it replaces match 2.
              (local.set $start2 (local.get $start3))
              (local.set $ref2 (local.get $ref3))
              (local.set $ml2 (local.get $ml3))
              (br $step)))
          ;; Three ascending matches: write match 1, cut before match 2; shift 2 and 3 down.
          (if (i32.lt_s (local.get $start2) (i32.add (local.get $ip) (local.get $ml)))
            (then
              (if (i32.lt_s (i32.sub (local.get $start2) (local.get $ip)) (i32.const 18))
                (then
                  (if (i32.gt_s (local.get $ml) (i32.const 18)) (then (local.set $ml (i32.const 18))))
                  (if (i32.gt_s (i32.add (local.get $ip) (local.get $ml))
                                (i32.sub (i32.add (local.get $start2) (local.get $ml2)) (i32.const 4)))
                    (then
                      (local.set $ml
                        (i32.sub (i32.add (i32.sub (local.get $start2) (local.get $ip)) (local.get $ml2)) (i32.const 4)))))
                  (local.set $correction (i32.sub (local.get $ml) (i32.sub (local.get $start2) (local.get $ip))))
                  (if (i32.gt_s (local.get $correction) (i32.const 0))
                    (then
                      (local.set $start2 (i32.add (local.get $start2) (local.get $correction)))
                      (local.set $ref2 (i32.add (local.get $ref2) (local.get $correction)))
                      (local.set $ml2 (i32.sub (local.get $ml2) (local.get $correction))))))
                (else (local.set $ml (i32.sub (local.get $start2) (local.get $ip)))))))
          (if (i32.eqz (call $sequence (local.get $ip) (local.get $ml) (local.get $ref))) (then (return (i32.const 0))))
          (local.set $ip (local.get $start2))
          (local.set $ref (local.get $ref2))
          (local.set $ml (local.get $ml2))
          (local.set $start2 (local.get $start3))
          (local.set $ref2 (local.get $ref3))
          (local.set $ml2 (local.get $ml3))
          (br $step))))
    (i32.const 1))

  ;; ---------------------------------------------------------------------------------
  ;; Levels 10-12: optimal parsing (lz4hc-block.ts `optimal`, the same steps).

  ;; Output bytes of a literal run.
  (func $literalsPrice (param $n i32) (result i32)
    (if (result i32) (i32.ge_s (local.get $n) (i32.const 15))
      (then (i32.add (i32.add (local.get $n) (i32.const 1)) (i32.div_u (i32.sub (local.get $n) (i32.const 15)) (i32.const 255))))
      (else (local.get $n))))

  ;; Address of position k's entry.
  (func $at (param $k i32) (result i32)
    (i32.add (global.get $opt) (i32.shl (local.get $k) (i32.const 4))))

  ;; Position k reached by a run of `run` literals at `cost`.
  (func $literal (param $k i32) (param $run i32) (param $cost i32)
    (local $e i32)
    (local.set $e (call $at (local.get $k)))
    (i32.store offset=0 (local.get $e) (local.get $cost))
    (i32.store offset=4 (local.get $e) (i32.const 1))
    (i32.store offset=8 (local.get $e) (i32.const 0))
    (i32.store offset=12 (local.get $e) (local.get $run)))

  ;; The 3 positions after `last` reached by literals.
  (func $trailing (param $last i32)
    (local $base i32)
    (local.set $base (i32.load (call $at (local.get $last))))
    (call $literal (i32.add (local.get $last) (i32.const 1)) (i32.const 1) (i32.add (local.get $base) (i32.const 1)))
    (call $literal (i32.add (local.get $last) (i32.const 2)) (i32.const 2) (i32.add (local.get $base) (i32.const 2)))
    (call $literal (i32.add (local.get $last) (i32.const 3)) (i32.const 3) (i32.add (local.get $base) (i32.const 3))))

  (func $optimal (param $srcEnd i32) (param $searches i32) (param $sufficient i32) (param $full i32) (result i32)
    (local $mfLimit i32) (local $matchLimit i32) (local $ip i32) (local $llen i32)
    (local $firstLen i32) (local $firstOff i32) (local $r i32) (local $m i32) (local $e i32)
    (local $last i32) (local $cur i32) (local $p i32) (local $len i32) (local $offset i32)
    (local $immediate i32) (local $bestLen i32) (local $bestOff i32) (local $minLen i32)
    (local $baseLit i32) (local $priceCur i32) (local $cost i32) (local $ll i32) (local $base i32)
    (local $pos i32) (local $candidate i32) (local $selLen i32) (local $selOff i32)
    (local $nextLen i32) (local $nextOff i32) (local $ec i32) (local $extra i32) (local $bump i32) (local $reach i32)
    (local.set $mfLimit (i32.sub (local.get $srcEnd) (i32.const 12)))
    (local.set $matchLimit (i32.sub (local.get $srcEnd) (i32.const 5)))
    (local.set $ip (global.get $src))
    (block $end
      (loop $main
        (br_if $end (i32.gt_s (local.get $ip) (local.get $mfLimit)))
        (local.set $llen (i32.sub (local.get $ip) (global.get $anchor)))
        (local.set $firstLen
          (call $widerMatch (local.get $ip) (local.get $ip) (local.get $matchLimit) (i32.const 3)
                            (local.get $searches) (i32.const 1) (i32.const 1)))
        (if (i32.le_s (local.get $firstLen) (i32.const 3))
          (then
            (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
            (br $main)))
        (local.set $firstOff (i32.sub (local.get $ip) (global.get $matchPos)))
        (if (i32.gt_s (local.get $firstLen) (local.get $sufficient))
          (then
            ;; Good enough: written at once.
            (if (i32.eqz (call $sequence (local.get $ip) (local.get $firstLen) (global.get $matchPos))) (then (return (i32.const 0))))
            (local.set $ip (i32.add (local.get $ip) (local.get $firstLen)))
            (br $main)))
        (local.set $r (i32.const 0))
        (loop $lits
          (call $literal (local.get $r) (i32.add (local.get $llen) (local.get $r))
                         (call $literalsPrice (i32.add (local.get $llen) (local.get $r))))
          (local.set $r (i32.add (local.get $r) (i32.const 1)))
          (br_if $lits (i32.lt_s (local.get $r) (i32.const 4))))
        (local.set $base (i32.add (i32.const 3) (call $literalsPrice (local.get $llen))))
        ;; Match length bytes counted as m grows (as in $lengths below).
        (local.set $m (i32.const 4))
        (local.set $e (call $at (i32.const 4)))
        (local.set $extra (i32.const 0))
        (local.set $bump (i32.const 19))
        (loop $first
          (if (i32.eq (local.get $m) (local.get $bump))
            (then
              (local.set $extra (i32.add (local.get $extra) (i32.const 1)))
              (local.set $bump (i32.add (local.get $bump) (i32.const 255)))))
          (i32.store offset=0 (local.get $e) (i32.add (local.get $base) (local.get $extra)))
          (i32.store offset=4 (local.get $e) (local.get $m))
          (i32.store offset=8 (local.get $e) (local.get $firstOff))
          (i32.store offset=12 (local.get $e) (local.get $llen))
          (local.set $m (i32.add (local.get $m) (i32.const 1)))
          (local.set $e (i32.add (local.get $e) (i32.const 16)))
          (br_if $first (i32.le_s (local.get $m) (local.get $firstLen))))
        (local.set $last (local.get $firstLen))
        (call $trailing (local.get $last))

        (local.set $immediate (i32.const 0))
        (local.set $cur (i32.const 1))
        (block $searched
          (loop $positions
            (br_if $searched (i32.ge_s (local.get $cur) (local.get $last)))
            (local.set $p (i32.add (local.get $ip) (local.get $cur)))
            (br_if $searched (i32.gt_s (local.get $p) (local.get $mfLimit)))
            (block $next
              ;; cur's entry; cur + 1's is 16 bytes on, cur + 4's 64.
              (local.set $ec (call $at (local.get $cur)))
              (local.set $priceCur (i32.load (local.get $ec)))
              ;; Skip when the next position is no dearer (level 12: unless prices rise
              ;; sharply after it).
              (if (local.get $full)
                (then
                  (br_if $next
                    (i32.and (i32.le_s (i32.load offset=16 (local.get $ec)) (local.get $priceCur))
                             (i32.lt_s (i32.load offset=64 (local.get $ec)) (i32.add (local.get $priceCur) (i32.const 3))))))
                (else
                  (br_if $next (i32.le_s (i32.load offset=16 (local.get $ec)) (local.get $priceCur)))))
              (local.set $minLen (select (i32.const 3) (i32.sub (local.get $last) (local.get $cur)) (local.get $full)))
              (local.set $len
                (call $widerMatch (local.get $p) (local.get $p) (local.get $matchLimit) (local.get $minLen)
                                  (local.get $searches) (i32.const 1) (i32.const 1)))
              (br_if $next (i32.le_s (local.get $len) (local.get $minLen)))
              (local.set $offset (i32.sub (local.get $p) (global.get $matchPos)))
              (if (i32.or (i32.gt_s (local.get $len) (local.get $sufficient))
                          (i32.ge_s (i32.add (local.get $len) (local.get $cur)) (i32.const 4096)))
                (then
                  ;; Long enough, or reaching past the window: written at once after the path so far.
                  (local.set $bestLen (local.get $len))
                  (local.set $bestOff (local.get $offset))
                  (local.set $last (i32.add (local.get $cur) (i32.const 1)))
                  (local.set $immediate (i32.const 1))
                  (br $searched)))
              ;; Literals after the path to cur.
              (local.set $baseLit (i32.load offset=12 (local.get $ec)))
              (local.set $r (i32.const 1))
              (loop $more
                (local.set $cost
                  (i32.add (i32.sub (local.get $priceCur) (call $literalsPrice (local.get $baseLit)))
                           (call $literalsPrice (i32.add (local.get $baseLit) (local.get $r)))))
                (if (i32.lt_s (local.get $cost) (i32.load (call $at (i32.add (local.get $cur) (local.get $r)))))
                  (then (call $literal (i32.add (local.get $cur) (local.get $r)) (i32.add (local.get $baseLit) (local.get $r)) (local.get $cost))))
                (local.set $r (i32.add (local.get $r) (i32.const 1)))
                (br_if $more (i32.lt_s (local.get $r) (i32.const 4))))
              ;; The match at cur, every length: after the literals that reach cur, or
              ;; right after the match that does.
              (if (i32.eq (i32.load offset=4 (local.get $ec)) (i32.const 1))
                (then
                  (local.set $ll (local.get $baseLit))
                  (local.set $base
                    (i32.add
                      (select (i32.load (call $at (i32.sub (local.get $cur) (local.get $ll)))) (i32.const 0)
                              (i32.gt_s (local.get $cur) (local.get $ll)))
                      (i32.add (i32.const 3) (call $literalsPrice (local.get $ll))))))
                (else
                  (local.set $ll (i32.const 0))
                  (local.set $base (i32.add (local.get $priceCur) (i32.const 3)))))
              ;; The match length bytes past the token's 15 + 4, counted as m grows: the
              ;; first at 19, one more every 255. Positions past last + 3 hold no price
              ;; yet (last changes only at the final length).
              (local.set $m (i32.const 4))
              (local.set $pos (i32.add (local.get $cur) (i32.const 4)))
              (local.set $e (i32.add (local.get $ec) (i32.const 64)))
              (local.set $extra (i32.const 0))
              (local.set $bump (i32.const 19))
              (local.set $reach (i32.add (local.get $last) (i32.const 3)))
              (loop $lengths
                (if (i32.eq (local.get $m) (local.get $bump))
                  (then
                    (local.set $extra (i32.add (local.get $extra) (i32.const 1)))
                    (local.set $bump (i32.add (local.get $bump) (i32.const 255)))))
                (local.set $cost (i32.add (local.get $base) (local.get $extra)))
                (if (i32.or (i32.gt_s (local.get $pos) (local.get $reach))
                            (i32.le_s (local.get $cost) (i32.load (local.get $e))))
                  (then
                    (if (i32.and (i32.eq (local.get $m) (local.get $len)) (i32.lt_s (local.get $last) (local.get $pos)))
                      (then (local.set $last (local.get $pos))))
                    (i32.store offset=0 (local.get $e) (local.get $cost))
                    (i32.store offset=4 (local.get $e) (local.get $m))
                    (i32.store offset=8 (local.get $e) (local.get $offset))
                    (i32.store offset=12 (local.get $e) (local.get $ll))))
                (local.set $m (i32.add (local.get $m) (i32.const 1)))
                (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
                (local.set $e (i32.add (local.get $e) (i32.const 16)))
                (br_if $lengths (i32.le_s (local.get $m) (local.get $len))))
              (call $trailing (local.get $last)))
            (local.set $cur (i32.add (local.get $cur) (i32.const 1)))
            (br $positions)))
        (if (i32.eqz (local.get $immediate))
          (then
            (local.set $e (call $at (local.get $last)))
            (local.set $bestLen (i32.load offset=4 (local.get $e)))
            (local.set $bestOff (i32.load offset=8 (local.get $e)))
            (local.set $cur (i32.sub (local.get $last) (local.get $bestLen)))))
        ;; Walk the path back from cur, turning each step's "how it was reached" into
        ;; "what starts here".
        (local.set $candidate (local.get $cur))
        (local.set $selLen (local.get $bestLen))
        (local.set $selOff (local.get $bestOff))
        (block $walked
          (loop $walk
            (local.set $e (call $at (local.get $candidate)))
            (local.set $nextLen (i32.load offset=4 (local.get $e)))
            (local.set $nextOff (i32.load offset=8 (local.get $e)))
            (i32.store offset=4 (local.get $e) (local.get $selLen))
            (i32.store offset=8 (local.get $e) (local.get $selOff))
            (local.set $selLen (local.get $nextLen))
            (local.set $selOff (local.get $nextOff))
            (br_if $walked (i32.gt_s (local.get $nextLen) (local.get $candidate)))
            (local.set $candidate (i32.sub (local.get $candidate) (local.get $nextLen)))
            (br $walk)))
        ;; Write it.
        (local.set $r (i32.const 0))
        (block $written
          (loop $write
            (br_if $written (i32.ge_s (local.get $r) (local.get $last)))
            (local.set $e (call $at (local.get $r)))
            (local.set $m (i32.load offset=4 (local.get $e)))
            (if (i32.eq (local.get $m) (i32.const 1))
              (then
                (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
                (local.set $r (i32.add (local.get $r) (i32.const 1)))
                (br $write)))
            (local.set $r (i32.add (local.get $r) (local.get $m)))
            (if (i32.eqz (call $sequence (local.get $ip) (local.get $m)
                                         (i32.sub (local.get $ip) (i32.load offset=8 (local.get $e)))))
              (then (return (i32.const 0))))
            (local.set $ip (i32.add (local.get $ip) (local.get $m)))
            (br $write)))
        (br $main)))
    (i32.const 1))

  ;; ---------------------------------------------------------------------------------
  ;; compress(src, srcEnd, dst, dstEnd, work, level) -> compressed size | -1 | -4
  (func (export "compress")
    (param $src i32) (param $srcEnd i32) (param $dst i32) (param $dstEnd i32) (param $work i32) (param $level i32)
    (result i32)
    (local $limit i32) (local $ok i32)
    ;; Largest usable address + 1, minus 32 bytes of margin (as lz4.wat's).
    (local.set $limit (i32.sub (i32.shl (memory.size) (i32.const 16)) (i32.const 32)))
    (if (i32.or (i32.lt_u (local.get $level) (i32.const 3)) (i32.gt_u (local.get $level) (i32.const 12)))
      (then (return (i32.const -4))))
    (if (i32.or
          (i32.or (i32.gt_u (local.get $src) (local.get $srcEnd)) (i32.gt_u (local.get $srcEnd) (local.get $limit)))
          (i32.or (i32.or (i32.gt_u (local.get $dst) (local.get $dstEnd)) (i32.gt_u (local.get $dstEnd) (local.get $limit)))
                  (i32.or (i32.gt_u (local.get $work) (local.get $limit))
                          (i32.gt_u (i32.const 327728) (i32.sub (local.get $limit) (local.get $work))))))
      (then (return (i32.const -4))))
    (global.set $src (local.get $src))
    (global.set $delta (i32.sub (i32.const 0x10000) (local.get $src)))
    (global.set $hashT (local.get $work))
    (global.set $chainT (i32.add (local.get $work) (i32.const 0x20000)))
    (global.set $opt (i32.add (local.get $work) (i32.const 0x40000)))
    (global.set $next (i32.const 0x10000))
    (global.set $op (local.get $dst))
    (global.set $anchor (local.get $src))
    (global.set $dstEnd (local.get $dstEnd))
    (memory.fill (local.get $work) (i32.const 0) (i32.const 0x20000))
    (local.set $ok
      (if (result i32) (i32.lt_u (local.get $level) (i32.const 10))
        ;; 4, 8, ... 256 candidates for levels 3..9.
        (then (call $hashChain (local.get $srcEnd) (i32.shl (i32.const 1) (i32.sub (local.get $level) (i32.const 1)))))
        (else
          (if (result i32) (i32.eq (local.get $level) (i32.const 10))
            (then (call $optimal (local.get $srcEnd) (i32.const 96) (i32.const 64) (i32.const 0)))
            (else
              (if (result i32) (i32.eq (local.get $level) (i32.const 11))
                (then (call $optimal (local.get $srcEnd) (i32.const 512) (i32.const 128) (i32.const 0)))
                ;; Level 12: 16384 candidates, matches up to 4095 priced, every position searched.
                (else (call $optimal (local.get $srcEnd) (i32.const 16384) (i32.const 4095) (i32.const 1)))))))))
    (if (i32.eqz (local.get $ok)) (then (return (i32.const -1))))
    (if (i32.eqz (call $lastLiterals (local.get $srcEnd))) (then (return (i32.const -1))))
    (i32.sub (global.get $op) (local.get $dst)))
)
