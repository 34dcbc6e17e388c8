import { percentile } from './service.ts'

/** Answers before the timed ones, so the service and the database are warm. */
export const WARM_UP = 10

const ms = (value: number) => `${value.toFixed(1)} ms`

/**
 * Times `requests` GETs of a dashboard API path (after WARM_UP untimed ones),
 * each one after the other, and prints p50 and p99 against the p50 target.
 * A status other than 200 stops the bench; the last answer's body is returned.
 */
export async function timeGet(
  base: string,
  cookie: string,
  path: string,
  options: { requests: number; targetMs: number; label?: string },
) {
  const get = async () => {
    const started = performance.now()
    const res = await fetch(`${base}/dashboard/api${path}`, { headers: { cookie } })
    const text = await res.text()
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`)
    return { ms: performance.now() - started, text }
  }
  for (let i = 0; i < WARM_UP; i++) await get()
  const times: number[] = []
  let last = ''
  for (let i = 0; i < options.requests; i++) {
    const r = await get()
    times.push(r.ms)
    last = r.text
  }
  const p50 = percentile(times, 50)
  const p99 = percentile(times, 99)
  const verdict = p50 < options.targetMs ? 'under' : 'OVER'
  console.log(
    `${(options.label ?? `GET ${path}`).padEnd(46)} p50 ${ms(p50)}  p99 ${ms(p99)}  (${verdict} the ${options.targetMs} ms p50 target)  ${last.length} bytes`,
  )
  return { p50, p99, last }
}

/**
 * An action the bench times once per target (a production order, or a
 * batch of them), each target used once: `act` makes the request and throws
 * when its answer is not what the action should have done.
 */
export interface TimedAction<T> {
  label: string
  /** The p99 each action must stay under. */
  targetMs: number
  act(target: T): Promise<void>
}

/** Times `action` on each target after the first WARM_UP (untimed), one after the other; prints p50 and p99. */
export async function timeAction<T>(action: TimedAction<T>, targets: T[]) {
  if (targets.length <= WARM_UP) throw new Error(`${action.label}: only ${targets.length} targets`)
  for (const target of targets.slice(0, WARM_UP)) await action.act(target)
  const times: number[] = []
  for (const target of targets.slice(WARM_UP)) {
    const started = performance.now()
    await action.act(target)
    times.push(performance.now() - started)
  }
  const p50 = percentile(times, 50)
  const p99 = percentile(times, 99)
  const verdict = p99 < action.targetMs ? 'under' : 'OVER'
  console.log(
    `${action.label.padEnd(46)} p50 ${ms(p50)}  p99 ${ms(p99)}  (${verdict} the ${action.targetMs} ms p99 target)  ${times.length} actions`,
  )
  return { p50, p99 }
}
