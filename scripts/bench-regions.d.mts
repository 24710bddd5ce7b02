// Types of scripts/bench-regions.mjs (the generated regions of docs/*.md), for the test
// that checks them (test/bench-regions.test.ts).

/** A bench that writes a region: the doc holding it, its argv after `node`, its environment. */
export interface Bench {
  readonly doc: string
  readonly argv: readonly string[]
  readonly env: Readonly<Record<string, string>>
}
/** The benches that write regions, by name. */
export declare const BENCHES: Readonly<Record<string, Bench>>
/** The command line of a bench as a reader would type it (environment first). */
export declare function commandOf(name: string): string
/** The script file a bench's command runs. */
export declare function scriptOf(name: string): string | undefined
/** The header line of a region: date, CPU model, cores, Node, load at start and end, seconds, command. */
export declare const HEADER: RegExp
/** A region: its name, the line indexes of its markers, the lines between them. */
export interface Region {
  name: string
  start: number
  end: number
  body: string[]
}
/** The regions of a doc, in order; throws on markers that do not pair. */
export declare function findRegions(text: string): Region[]
/** `text` with region `name`'s body replaced by `body`; the rest byte for byte. */
export declare function replaceRegion(text: string, name: string, body: string): string
/** The machine, as the header names it. */
export interface Machine {
  model: string
  cores: number
  node: string
  load: number
}
export declare function machine(): Machine
/** A region's body: generated-by comment, header, blank line, the bench's markdown. */
export declare function renderBody(
  name: string,
  run: { date: Date; machine: Machine; loadEnd: number; seconds: number; stdout: string },
): string
