import '@mantine/core/styles.css'
import '@mantine/charts/styles.css'
import { type CSSVariablesResolver, createTheme, MantineProvider } from '@mantine/core'
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from 'react-router'
import { SESSION_KEY } from '../features/auth/api/session.ts'
import { ApiError } from '../lib/api.ts'
import { styleNonce } from '../lib/nonce.ts'
import { router } from './router.tsx'

// The system font stack: no web fonts, nothing fetched from elsewhere.
// Modals leave the page's scrolling alone: locking it writes a style element
// without the CSP nonce (react-remove-scroll), which the policy refuses.
const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 8, dark: 4 },
  components: { Modal: { defaultProps: { lockScroll: false } } },
})

// Mantine's dimmed text (gray 6) is below 4.5:1 on white; one shade darker
// passes (axe checks every page). Alerts use the default variant for the same reason.
// A field's message (red 6) likewise: red 9 reads at 4.5:1 and more.
const resolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
  dark: {},
})

/** A session that ended (expired, signed out elsewhere) sends the member to sign-in. */
function onError(error: unknown) {
  if (error instanceof ApiError && error.code === 'session_required') {
    queryClient.setQueryData(SESSION_KEY, null)
  }
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    },
  },
})

const nonce = styleNonce()

export function App() {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={resolver} getStyleNonce={() => nonce}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  )
}
