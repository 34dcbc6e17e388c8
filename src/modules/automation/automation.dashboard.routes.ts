import { change, ctx, DASHBOARD_TAG, type DashboardArea, meta, viewer } from '../../dashboard/route-config.ts'
import { actorOf } from '../accounts/accounts.views.ts'
import {
  DryRunAnswer,
  FieldCatalog,
  ReorderBody,
  RuleAnswer,
  RuleBody,
  RuleDeleted,
  RuleList,
  RuleParams,
} from './automation.dashboard.schemas.ts'
import type { AutomationService } from './automation.service.ts'
import { fieldCatalog, ruleList, toRule } from './automation.views.ts'

const tags = [DASHBOARD_TAG]

/**
 * Automation: the organization's rules (everyone reads them; owners and
 * developers change them, each change audited), what a rule can say, and
 * the dry run of a rule against the latest live orders.
 */
export const automationDashboardRoutes: DashboardArea<{ automation: AutomationService }> = (
  app,
  { automation },
) => {
  const org = (request: Parameters<typeof ctx>[0]) => ctx(request).member.organization_id
  const actor = (request: Parameters<typeof ctx>[0]) => actorOf(ctx(request), meta(request))

  app.get(
    '/automation/rules',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardListAutomationRules',
        tags,
        summary: "The organization's automation rules, in the order they run",
        response: { 200: RuleList },
      },
    },
    async (request) => ({ data: ruleList(await automation.list(org(request))) }),
  )

  app.get(
    '/automation/fields',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardAutomationFields',
        tags,
        summary: 'What a rule can read and do: fields with their operators and value kinds, actions, limits',
        response: { 200: FieldCatalog },
      },
    },
    async () => ({ data: fieldCatalog() }),
  )

  app.post(
    '/automation/rules',
    {
      config: change('developer'),
      schema: {
        operationId: 'dashboardCreateAutomationRule',
        tags,
        summary: 'Add a rule at the end of the list; it applies to orders arriving afterwards',
        body: RuleBody,
        response: { 201: RuleAnswer },
      },
    },
    async (request, reply) => {
      const rule = await automation.create(org(request), request.body, actor(request))
      reply.code(201)
      return { data: { rule: toRule(rule) } }
    },
  )

  app.put(
    '/automation/rules/:rule_id',
    {
      config: change('developer'),
      schema: {
        operationId: 'dashboardUpdateAutomationRule',
        tags,
        summary:
          'Replace a rule (name, enabled, conditions, actions); orders already accepted keep what it did',
        params: RuleParams,
        body: RuleBody,
        response: { 200: RuleAnswer },
      },
    },
    async (request) => ({
      data: {
        rule: toRule(
          await automation.update(org(request), request.params.rule_id, request.body, actor(request)),
        ),
      },
    }),
  )

  app.delete(
    '/automation/rules/:rule_id',
    {
      config: change('developer', false),
      schema: {
        operationId: 'dashboardDeleteAutomationRule',
        tags,
        summary: 'Delete a rule; the rules after it move up',
        params: RuleParams,
        response: { 200: RuleDeleted },
      },
    },
    async (request) => {
      await automation.remove(org(request), request.params.rule_id, actor(request))
      return { data: { deleted: true as const, id: request.params.rule_id } }
    },
  )

  app.post(
    '/automation/rules/order',
    {
      config: change('developer'),
      schema: {
        operationId: 'dashboardReorderAutomationRules',
        tags,
        summary: 'Put the rules in a new order (every rule once)',
        body: ReorderBody,
        response: { 200: RuleList },
      },
    },
    async (request) => ({
      data: ruleList(await automation.reorder(org(request), request.body.rule_ids, actor(request))),
    }),
  )

  app.post(
    '/automation/dry-run',
    {
      config: change('viewer'),
      schema: {
        operationId: 'dashboardDryRunAutomationRule',
        tags,
        summary:
          'Which of the latest 100 live orders a rule (saved or not) would have matched; changes nothing',
        body: RuleBody,
        response: { 200: DryRunAnswer },
      },
    },
    async (request) => {
      const { checked, matched } = await automation.dryRun(org(request), request.body)
      return {
        data: {
          checked,
          matched: matched.length,
          orders: matched.map((o) => ({
            id: o.id,
            external_order_id: o.external_order_id,
            status: o.status,
            created_at: o.created_at.toISOString(),
          })),
        },
      }
    },
  )
}
