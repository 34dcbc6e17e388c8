import { Socket } from 'node:net'

/** Whether a TCP connection to the URL's host and port opens within 3 s. */
export function reachable(url: string, defaultPort: number): Promise<boolean> {
  const u = new URL(url)
  return new Promise((resolve) => {
    const socket = new Socket()
    socket.setTimeout(3000)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(false))
    socket.connect(Number(u.port || defaultPort), u.hostname)
  })
}
