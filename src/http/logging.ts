import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import pinoPretty from 'pino-pretty'

const REDACTED = 'REDACTED'

/**
 * Query parameters whose values are secrets: the signature of a signed upload
 * URL (ours and S3's X-Amz-Signature, -Credential, -Security-Token) and any
 * token, key, secret or password a client puts in a URL.
 */
const SECRET_PARAM = /([?&][^=&\s"]*(?:signature|token|secret|password|credential|key)=)[^&\s"#]*/gi

/** Secrets by their form, wherever they appear in a line: API keys, webhook secrets, bearer tokens. */
const SECRET_FORMS: [RegExp, string][] = [
  [/\b(svc_(?:test|live)_)[0-9A-Za-z]+/g, `$1${REDACTED}`],
  [/\bwhsec_[\w-]+/g, `whsec_${REDACTED}`],
  [/\b(Bearer\s+)[^\s"]{8,}/gi, `$1${REDACTED}`],
  [/(\/\/[^/:@\s"]*:)[^/@\s"]+@/g, `$1${REDACTED}@`],
  [SECRET_PARAM, `$1${REDACTED}`],
]

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
}

/** Replaces every secret in a log line (a JSON string) or URL. */
export function redactSecrets(line: string, secrets: string[] = []): string {
  let out = line
  for (const [pattern, replacement] of SECRET_FORMS) out = out.replace(pattern, replacement)
  for (const secret of secrets) out = out.replaceAll(secret, REDACTED)
  return out
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
