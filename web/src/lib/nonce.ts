/** The nonce the service put into this page's CSP and meta tag (for Mantine's style elements). */
export function styleNonce(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? ''
}
