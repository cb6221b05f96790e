/** Messages over HTTP: a send the main caller may make, and the messaging endpoints as one call each. */
import * as Http from "./Http.js"

/** A valid send request for the main caller (Sender ID `Acme`, registered in AU); override fields as needed. */
export const validSend = { to: "+61412345678", sender_id: "Acme", body: "Hello from Acme", market: "AU" }

/**
 * 21,000 distinct CJK characters: a 63 KB body (just under the 64 KiB request limit) whose preview
 * answers ~126 KB, each character being one that forces UCS-2.
 */
export const cjkBody = Array.from({ length: 21_000 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join("")

/** `POST /v1/messaging/messages` with `json` (the main caller's key unless given). */
export const send = (json: unknown, options: Omit<Http.RequestOptions, "json"> = {}) =>
  Http.request("POST", "/v1/messaging/messages", { ...options, json })

/** `POST /v1/messaging/preview` with `json`. */
export const preview = (json: unknown, options: Omit<Http.RequestOptions, "json"> = {}) =>
  Http.request("POST", "/v1/messaging/preview", { ...options, json })

/** `GET /v1/messaging/messages` with `query`. */
export const list = (query: Record<string, string> = {}, options: Http.RequestOptions = {}) =>
  Http.request("GET", "/v1/messaging/messages?" + new URLSearchParams(query).toString(), options)
