/**
 * `abuse.ts` item 4, the redelivery amplification (issue 29): the demo account asks for 200
 * identical subscriptions to one receiver, sends one message, and once its event is delivered asks
 * five times at once to redeliver it: how many subscriptions were made, and how many POSTs the five
 * calls made to that one URL (the receiver takes 200 ms to answer). The subscriptions are deleted
 * afterwards.
 */
import { api, receiver, tally, type Target, until } from "./abuse-kit.js"

export const redeliveryAmplification = async (target: Target) => {
  let posts = 0
  const hook = await receiver(200, () => posts++)
  // until no POST has come for 2 s
  const quiet = async () => {
    let last = -1
    while (last !== posts) {
      last = posts
      await new Promise((r) => setTimeout(r, 2_000))
    }
  }
  try {
    const subscribe = { url: `${hook.url}/hook`, events: ["message.queued"], secret: "whsec-abuse-0123456789" }
    const created = await Promise.all(
      Array.from({ length: 200 }, () => api(target, target.key, "POST", "/v1/webhooks", subscribe))
    )
    const subscriptions = created.filter((c) => c.status === 201).length
    const sent = await api(target, target.key, "POST", "/v1/messaging/messages", {
      to: "+61412345678",
      sender_id: "Sendline",
      market: "AU",
      body: "once"
    })
    if (sent.status !== 201) throw new Error(`send answered ${sent.status}`)
    await until(() => posts >= subscriptions, 30_000)
    await quiet()
    const events = await api(target, target.key, "GET", "/v1/events?type=message.queued&page_size=1")
    const eventId = events.json.data[0].id as string
    const before = posts
    const redelivered = await Promise.all(
      Array.from({ length: 5 }, () => api(target, target.key, "POST", `/v1/events/${eventId}/redeliver`))
    )
    await quiet()
    console.log(
      `7. 200 subscriptions asked for at once: ${
        tally(created.map((c) => c.status))
      }; five redeliveries of one event at once ` +
        `${tally(redelivered.map((r) => r.status))} made ${posts - before} POSTs to one URL`
    )
    // the next item's account starts without them
    for (const c of created) {
      if (c.status === 201) await api(target, target.key, "DELETE", `/v1/webhooks/${c.json.data.id}`)
    }
  } finally {
    await hook.close()
  }
}
