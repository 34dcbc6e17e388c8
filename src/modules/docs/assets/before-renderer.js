// Loaded before the renderer's bundle. zod (inside it) otherwise probes once
// whether it may compile validators with Function(), which the page's CSP
// forbids: the browser reports that probe as a violation. Jitless, zod never
// tries; it validates the same way without compiled code.
globalThis.__zod_globalConfig = { ...globalThis.__zod_globalConfig, jitless: true }
