import Bowser from 'bowser'

/** Systems whose version people name (Windows 10, iOS 17, Android 14); the others by name alone. */
const VERSIONED_SYSTEMS = new Set(['Windows', 'iOS', 'Android', 'iPadOS', 'ChromeOS'])

/**
 * A User-Agent header in words: "Chrome 131 on Linux", "Safari 17 on iOS 17",
 * "Firefox 133 on Windows 10"; undefined when no browser can be read from it
 * (empty, curl, a script), so the page shows the raw string instead.
 */
export function describeUserAgent(header: string): string | undefined {
  if (header.trim() === '') return undefined
  const { browser, os } = Bowser.parse(header)
  if (!browser.name) return undefined
  const major = browser.version?.split('.')[0]
  const name = major ? `${browser.name} ${major}` : browser.name
  if (!os.name) return name
  const osVersion = os.versionName ?? os.version?.split('.')[0]
  return `${name} on ${VERSIONED_SYSTEMS.has(os.name) && osVersion ? `${os.name} ${osVersion}` : os.name}`
}
