import Type from 'typebox'
import { SanitizedName, StringEnum, Uuid } from '../../http/schemas.ts'
import { MAX_FILENAME } from './filename.ts'
import { MAX_UPLOAD_BYTES } from './storage/storage.ts'

export const UploadSlot = Type.Object(
  {
    upload_id: Uuid,
    filename: Type.String({ maxLength: MAX_FILENAME, description: 'The sanitized name.' }),
    upload_url: Type.String({
      format: 'uri',
      description:
        'Opaque, short-lived signed address (see expires_in_seconds): PUT the file\u2019s raw bytes to it exactly as returned, without Authorization and not wrapped in JSON. Do not build, parse or split it: it points at this service or, with S3 storage, straight at the bucket.',
    }),
    method: StringEnum(['PUT']),
    expires_in_seconds: Type.Integer(),
    max_bytes: Type.Integer({ description: String(MAX_UPLOAD_BYTES) }),
  },
  { $id: 'Upload', title: 'Upload', description: 'An upload slot: where and how to send one file.' },
)

export const UploadRequest = Type.Object(
  {
    filename: SanitizedName({
      minLength: 1,
      maxLength: 4096,
      description: 'The file\u2019s name; sanitized.',
    }),
  },
  { additionalProperties: false, $id: 'UploadRequest', title: 'UploadRequest' },
)

export const UploadReceipt = Type.Object(
  { upload_id: Uuid, size_bytes: Type.Integer({ description: 'Bytes stored.' }) },
  { $id: 'UploadReceipt', title: 'UploadReceipt', description: 'What a successful upload PUT stored.' },
)

/** The signed URL's parameters: documented, not validated (a malformed one is 403 upload_url_invalid). */
export const SignedUrlQuery = Type.Object({
  expires: Type.String({ pattern: '^\\d{1,15}$', description: 'Unix seconds when the URL stops working.' }),
  signature: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'HMAC of upload id and expiry.' }),
})
