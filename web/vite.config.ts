import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// Served by the service at /dashboard (src/modules/dashboard/web.routes.ts):
// hashed files under /dashboard/assets, nothing inline, nothing from elsewhere.
export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The polyfill would be a script of its own; every supported browser preloads modules.
    modulePreload: { polyfill: false },
    // Assets as files, never data: URLs.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1000,
  },
})
