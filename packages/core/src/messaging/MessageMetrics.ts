/**
 * The messages' metric (listed with the others in `Metrics`): `sendline_messages_entered{status}`,
 * one series per status, made once.
 *
 * @since 0.1.0
 */
import { byLabel, type Counter, counter, increment } from "../Metrics.js"
import { MessageStatus } from "./Message.js"

/** `sendline_messages_entered{status}`: messages entering each status, counted once committed. @since 0.1.0 @category metrics */
export const messagesEntered: Readonly<Record<MessageStatus, Counter>> = byLabel(
  MessageStatus.literals,
  (status) => counter("sendline_messages_entered", "Messages that entered a status (committed)", { status })
)

/** Counts one message entering `status`; synchronous, for a store right after its commit. @since 0.1.0 @category updates */
export const messageEntered = (status: MessageStatus): void => increment(messagesEntered[status])
