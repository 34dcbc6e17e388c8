// Settings of the API reference (Scalar). Everything it would fetch from
// elsewhere is off: fonts, telemetry, the AI agent, MCP, and the "Test request"
// client (whose requests go through a remote proxy).
// (The standalone bundle mounts itself, with its defaults, on an element with id "api-reference".)
const mount = document.getElementById('reference')
globalThis.Scalar.createApiReference(mount, {
  url: mount.dataset.openapiUrl,
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  hideTestRequestButton: true,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  defaultOpenAllTags: true,
  documentDownloadType: 'json',
})
