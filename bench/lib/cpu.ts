// CPU time of processes and threads, from /proc (Linux). Times there are in
// clock ticks of 1/100 s.
import { readdirSync, readFileSync } from 'node:fs'

const CLOCK_TICKS = 100

/** user + system CPU in ms from a /proc stat line (the fields after the command name). */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
}

/** user + system CPU of a process in ms; undefined once it is gone. */
export function cpuMs(pid: number): number | undefined {
  try {
    return statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return undefined
  }
}

/** CPU ms so far per thread name of a process (V8's background threads are all "V8Worker"). */
export function threadCpuMs(pid: number): Map<string, number> {
  const out = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      out.set(name, (out.get(name) ?? 0) + statCpuMs(stat))
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out
}

/**
 * CPU ms of the whole machine so far (all cores, from /proc/stat): busy (user,
 * nice, system, irq, softirq, steal) and idle (idle, iowait).
 */
export function machineCpuMs(): { busy: number; idle: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .split(/\s+/)
    .slice(1, 9)
    .map((v) => (Number(v) * 1000) / CLOCK_TICKS) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  return { busy: user + nice + system + irq + softirq + steal, idle: idle + iowait }
}
