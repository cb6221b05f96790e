/**
 * Where a session stands, in a module of its own: the public `SmppCarrier.State` names it without
 * naming the session, whose types name the untyped `smpp` library (declared only for this package's
 * own build, in `smpp.d.ts`), so the published types never need that declaration.
 */

/** Where the session stands: connecting, bound, or why not. */
export type State = "connecting" | "bound" | "unreachable" | "refused" | "lost"
