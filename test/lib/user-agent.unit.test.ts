import assert from 'node:assert/strict'
import { test } from 'node:test'
import { describeUserAgent } from '../../src/lib/user-agent.ts'

test('a User-Agent in words: browser and major version, then the system', () => {
  const cases: [string, string | undefined][] = [
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      'Chrome 131 on Linux',
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.8078.73 Safari/537.36',
      'Chrome 156 on Linux',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
      'Safari 17 on iOS 17',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
      'Firefox 133 on Windows 10',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'Microsoft Edge 131 on macOS',
    ],
    // Nothing a person would call a browser: the page shows the header as it came.
    ['curl/8.5.0', undefined],
    ['', undefined],
    ['   ', undefined],
  ]
  for (const [header, words] of cases) assert.equal(describeUserAgent(header), words, header)
})
