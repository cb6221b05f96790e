// split-sms 0.1.7 ships no type declarations; this covers the part of its API the benches use.
// (sms-segments-calculator ships its own.)
declare module "split-sms" {
  export interface SplitPart {
    readonly content: string
    readonly length: number
    readonly bytes: number
  }
  export interface SplitResult {
    readonly characterSet: "GSM" | "Unicode"
    readonly parts: ReadonlyArray<SplitPart>
    readonly bytes: number
    readonly length: number
    readonly remainingInPart: number
  }
  export const GSM: "GSM"
  export const UNICODE: "Unicode"
  export function split(
    message: string,
    options?: { readonly characterset?: "GSM" | "Unicode"; readonly summary?: boolean }
  ): SplitResult
}
