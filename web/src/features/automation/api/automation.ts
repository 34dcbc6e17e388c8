import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type AutomationRule, call, client, type Input } from '../../../lib/api.ts'

/** A rule as the API takes it (create, replace, dry run). */
export type RuleBody = Input<'/automation/rules', 'post'>

const RULES_KEY = ['automation', 'rules'] as const

export function useRules() {
  return useQuery({
    queryKey: RULES_KEY,
    queryFn: () => call(client.GET('/automation/rules')).then((r) => r.data),
  })
}

/** What a rule can say: fields, their operators and value kinds, actions, limits. It changes only with the service. */
export function useCatalog() {
  return useQuery({
    queryKey: ['automation', 'fields'],
    queryFn: () => call(client.GET('/automation/fields')).then((r) => r.data),
    staleTime: Number.POSITIVE_INFINITY,
  })
}

/** The rule as stored, in the shape the API takes back. */
export const bodyOf = (rule: AutomationRule): RuleBody => ({
  name: rule.name,
  enabled: rule.enabled,
  conditions: rule.conditions,
  actions: rule.actions,
})

/** Every change answers with the rule or the list; the list is read again either way. */
function useRuleChange<V, R>(mutationFn: (input: V) => Promise<R>) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: RULES_KEY }),
  })
}

/** Create (no id) or replace a rule. */
export function useSaveRule() {
  return useRuleChange(({ id, body }: { id?: string; body: RuleBody }) =>
    (id
      ? call(client.PUT('/automation/rules/{rule_id}', { params: { path: { rule_id: id } }, body }))
      : call(client.POST('/automation/rules', { body }))
    ).then((r) => r.data.rule),
  )
}

export function useDeleteRule() {
  return useRuleChange((id: string) =>
    call(client.DELETE('/automation/rules/{rule_id}', { params: { path: { rule_id: id } } })),
  )
}

/** New order of the rules: every rule's id once. */
export function useReorderRules() {
  return useRuleChange((ruleIds: string[]) =>
    call(client.POST('/automation/rules/order', { body: { rule_ids: ruleIds } })).then((r) => r.data),
  )
}

/** Which of the latest live orders the rule as edited would have matched; changes nothing. */
export function useDryRun() {
  return useMutation({
    mutationFn: (body: RuleBody) => call(client.POST('/automation/dry-run', { body })).then((r) => r.data),
  })
}
