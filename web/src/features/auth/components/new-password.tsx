import { PasswordInput } from '@mantine/core'
import { useState } from 'react'

export const PASSWORD_MIN = 12
export const PASSWORD_MAX = 200

/** A new password typed twice: the form checks the two agree before it sends the first. */
export function useNewPassword() {
  const [value, setValue] = useState('')
  const [repeat, setRepeat] = useState('')
  const [mismatch, setMismatch] = useState(false)
  return {
    value,
    /** On submit: whether the two agree; when they do not, the repeat field says so. */
    confirm: () => {
      setMismatch(value !== repeat)
      return value === repeat
    },
    clear: () => {
      setValue('')
      setRepeat('')
    },
    fields: { value, repeat, mismatch, setValue, setRepeat },
  }
}

/** The two fields of useNewPassword: the password (at least PASSWORD_MIN characters) and its repeat. */
export function NewPasswordFields({
  password,
  note,
  repeatLabel,
  error,
}: {
  password: ReturnType<typeof useNewPassword>
  /** Said after the length rule under the first field. */
  note?: string
  repeatLabel: string
  /** The service's refusal of the new password, beside it. */
  error?: string | undefined
}) {
  const { value, repeat, mismatch, setValue, setRepeat } = password.fields
  return (
    <>
      <PasswordInput
        label="New password"
        description={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters${note ? `. ${note}` : ''}`}
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
        value={value}
        error={error}
        onChange={(e) => setValue(e.currentTarget.value)}
      />
      <PasswordInput
        label={repeatLabel}
        autoComplete="new-password"
        required
        value={repeat}
        error={mismatch ? 'The two passwords differ.' : undefined}
        onChange={(e) => setRepeat(e.currentTarget.value)}
      />
    </>
  )
}
