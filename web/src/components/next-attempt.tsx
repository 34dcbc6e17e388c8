import { Time, useNow } from './time.tsx'

interface Pending {
  status: string
  next_attempt_at: string | null
  /** Set while the delivery waits for its failing endpoint's next probe. */
  endpoint_next_probe_at: string | null
}

/** "at 9:49:12 PM" (exact) or "in 4 minutes". */
function When({ at, exact }: { at: string; exact: boolean }) {
  return exact ? (
    <>
      at <Time value={at} exact />
    </>
  ) : (
    <Time value={at} />
  )
}

/** A failing endpoint's next probe: "in 4 minutes", or "due now" once its time has come. */
export function NextProbe({ at }: { at: string }) {
  const now = useNow()
  return Date.parse(at) <= now ? <>due now</> : <Time value={at} />
}

/**
 * When a pending delivery goes next, as it will: its own next try, or, while
 * its endpoint is failing, the endpoint's next probe, which it waits for
 * whatever its own (often past) time says. A time passed is due now: a
 * worker takes it as soon as it can. Nothing for a settled delivery.
 */
export function NextAttempt({ delivery, exact = false }: { delivery: Pending; exact?: boolean }) {
  const now = useNow()
  const own = delivery.next_attempt_at
  if (delivery.status !== 'pending' || own === null) return null
  const probe = delivery.endpoint_next_probe_at
  if (probe === null) {
    if (Date.parse(own) <= now) return <>Due now</>
    return (
      <>
        Next try <When at={own} exact={exact} />
      </>
    )
  }
  const later = Date.parse(own) > Math.max(now, Date.parse(probe))
  return (
    <>
      {Date.parse(probe) <= now ? (
        <>Waits for the endpoint’s probe, due now</>
      ) : (
        <>
          Waits for the endpoint’s next probe <When at={probe} exact={exact} />
        </>
      )}
      {later && (
        <>
          , then for its own next try <When at={own} exact={exact} />
        </>
      )}{' '}
      (the endpoint is failing)
    </>
  )
}
