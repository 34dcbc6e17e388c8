import { Anchor, Group, Image, Paper, Stack, Text } from '@mantine/core'
import type { DashboardOrder } from '../../../lib/api.ts'
import { thumbnailUrl, usePreflight } from '../../preflight/api.ts'
import { PreflightDetails } from '../../preflight/components/preflight-badge.tsx'
import { fileUrl } from '../api/order.ts'

type ItemFile = DashboardOrder['items'][number]['files'][number]

const size = (bytes: number | null) =>
  bytes === null ? '' : bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KB`

/** A file's role, type and size, as its card lists them under its name. */
export const fileFacts = (file: Pick<ItemFile, 'role' | 'content_type' | 'size_bytes'>) =>
  [file.role && `Role: ${file.role}`, file.content_type, size(file.size_bytes)].filter(Boolean).join(' · ')

/**
 * An item's files: the service's thumbnail (never the original) in <img>,
 * every file as a download link through the session, and its print check
 * against the product's spec. Names and roles are shown as text.
 */
export function OrderFiles({
  orderId,
  files,
  who = 'member',
}: {
  orderId: string
  files: ItemFile[]
  /** Whose route serves the bytes: the member's organization's, or the console's. */
  who?: 'member' | 'operator'
}) {
  const preflight = usePreflight(who, orderId)
  if (files.length === 0) return <Text c="dimmed">No files.</Text>
  const checked = new Map(preflight.data?.items.flatMap((i) => i.files).map((f) => [f.upload_id, f]))
  return (
    <Group align="flex-start" gap="md" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
      {files.map((file) => {
        const name = file.name ?? 'file'
        const url = fileUrl(orderId, file.upload_id, who)
        const check = checked.get(file.upload_id)
        return (
          <Paper key={file.upload_id} component="li" withBorder p="xs" radius="sm" w={240}>
            <Stack gap={4}>
              {check?.thumbnail && (
                <Image
                  src={thumbnailUrl(who, orderId, file.upload_id)}
                  alt={`Preview of ${name}`}
                  h={120}
                  fit="contain"
                  loading="lazy"
                />
              )}
              <Anchor href={url} download={name} size="sm" style={{ overflowWrap: 'anywhere' }}>
                {name}
              </Anchor>
              <Text size="xs" c="dimmed">
                {fileFacts(file)}
              </Text>
              {check && <PreflightDetails file={check} />}
            </Stack>
          </Paper>
        )
      })}
    </Group>
  )
}
