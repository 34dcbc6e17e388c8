import assert from 'node:assert/strict'
import { test } from 'node:test'
import { samplerOf } from '../../src/telemetry/start.ts'

test('OTEL_TRACES_SAMPLER: each of the specification’s samplers, the ratio ones with OTEL_TRACES_SAMPLER_ARG', () => {
  const named = (sampler: string, ratio = 1) => samplerOf({ sampler, ratio }).toString()
  assert.equal(named('always_on'), 'AlwaysOnSampler')
  assert.equal(named('always_off'), 'AlwaysOffSampler')
  assert.equal(named('traceidratio', 0.25), 'TraceIdRatioBased{0.25}')
  assert.match(named('parentbased_always_on'), /^ParentBased\{root=AlwaysOnSampler,/)
  assert.match(named('parentbased_always_off'), /^ParentBased\{root=AlwaysOffSampler,/)
  assert.match(named('parentbased_traceidratio', 0.1), /^ParentBased\{root=TraceIdRatioBased\{0.1\},/)
})
