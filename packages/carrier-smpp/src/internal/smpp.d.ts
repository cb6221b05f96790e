// smpp 0.5.1 ships no type declarations and there is no @types/smpp: this covers the part of its
// API that the carrier and the test SMSC use. Kept out of every exported signature, so that the
// packages depending on this one never need it.
declare module "smpp" {
  import type { EventEmitter } from "node:events"
  import type { Server as NetServer, Socket } from "node:net"

  namespace smpp {
    /** A decoded PDU: its header, and its parameters and TLVs by their SMPP names. */
    interface Pdu {
      readonly command: string
      readonly command_id: number
      readonly command_status: number
      readonly sequence_number: number
      readonly [field: string]: unknown
      isResponse(): boolean
      response(options?: Record<string, unknown>): Pdu
    }

    type Callback = (pdu: Pdu) => void

    interface Session extends EventEmitter {
      readonly socket: Socket
      /** Writes `pdu`; false when the socket is not writable (nothing was sent). */
      send(pdu: Pdu, responseCallback?: Callback, sendCallback?: Callback): boolean
      bind_transceiver(options: Record<string, unknown>, responseCallback?: Callback): boolean
      submit_sm(options: Record<string, unknown>, responseCallback?: Callback, sendCallback?: Callback): boolean
      deliver_sm(options: Record<string, unknown>, responseCallback?: Callback): boolean
      enquire_link(options?: Record<string, unknown> | Callback, responseCallback?: Callback): boolean
      unbind(options?: Record<string, unknown> | Callback, responseCallback?: Callback): boolean
      pause(): void
      resume(): void
      close(callback?: () => void): void
      destroy(callback?: () => void): void
    }

    interface Server extends NetServer {
      readonly sessions: ReadonlyArray<Session>
    }

    interface ConnectOptions {
      readonly host: string
      readonly port: number
      readonly tls?: boolean
      readonly [option: string]: unknown
    }

    interface Param {
      readonly type: unknown
      readonly filter?: {
        readonly encode: (this: Pdu, value: unknown) => unknown
        readonly decode: (this: Pdu, value: unknown, skipUdh?: boolean) => unknown
      }
    }
    /** The PDU definitions by command name: the package reads them when it encodes and decodes. */
    const commands: Record<string, { params?: Record<string, Param> }>
    const PDU: { new(command: string, options?: Record<string, unknown>): Pdu }
    /** Status names (`ESME_RTHROTTLED`) to their codes. */
    const errors: Readonly<Record<string, number>>
    function connect(options: ConnectOptions, listener?: () => void): Session
    function createServer(options: Record<string, unknown>, listener?: (session: Session) => void): Server
  }
  export = smpp
}
