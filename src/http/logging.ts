import { trace } from '@opentelemetry/api'
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import pinoPretty from 'pino-pretty'
import { REDACTED, redactSecrets } from './redaction.ts'

/** Headers that carry credentials, wherever a header object is logged. */
const SECRET_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key']

export interface LoggerSettings {
  level: string
  /** Readable lines (a terminal) instead of JSON lines. */
  pretty: boolean
  /** Values logged nowhere whatever their form (the operator token, storage credentials). */
  secrets: (string | undefined)[]
  /** Where lines go; stdout by default (tests capture them). */
  stream?: NodeJS.WritableStream
  /** With traces on: each line written inside a span names its trace_id and span_id. */
  traceIds?: boolean
}

/** The active span's ids for a log line; none outside a span. */
function traceIds(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext()
  return context && trace.isSpanContextValid(context)
    ? { trace_id: context.traceId, span_id: context.spanId }
    : {}
}

/**
 * Pino options for the service: secrets redacted from every line, the error
 * code on the request-completed line, readable lines on a terminal.
 */
export function loggerOptions(settings: LoggerSettings): NonNullable<FastifyServerOptions['logger']> {
  // A short value would replace innocent text; real secrets are long.
  const secrets = settings.secrets.filter((s): s is string => typeof s === 'string' && s.length >= 8)
  const stream = settings.pretty
    ? pinoPretty({
        colorize: true,
        sync: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
        ...(settings.stream ? { destination: settings.stream } : {}),
      })
    : settings.stream
  return {
    level: settings.level,
    ...(stream ? { stream } : {}),
    ...(settings.traceIds ? { mixin: traceIds } : {}),
    redact: {
      paths: SECRET_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `headers["${h}"]`]),
      censor: REDACTED,
    },
    serializers: {
      req: (request: Pick<FastifyRequest, 'method' | 'url' | 'host' | 'ip' | 'socket'>) => ({
        method: request.method,
        url: redactSecrets(request.url, secrets),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
      res: (reply: Pick<FastifyReply, 'statusCode'> & Partial<Pick<FastifyReply, 'appError'>>) => ({
        statusCode: reply.statusCode,
        ...(reply.appError ? { code: reply.appError.code } : {}),
      }),
    },
    hooks: { streamWrite: (line: string) => redactSecrets(line, secrets) },
  }
}
