// The admission webhook configurations (SPEC 1.4). caBundle is left out on purpose: the manager
// creates its own CA and patches it in, and a re-apply of this chart leaves the patched value alone.
import { Construct } from 'constructs';
import {
  KubeMutatingWebhookConfiguration,
  KubeValidatingWebhookConfiguration,
  type LabelSelector,
  type RuleWithOperations,
} from 'cdk8s-plus-28/lib/imports/k8s.js';
import { GROUP, VERSION, WEBHOOK_EXCLUDED_NAMESPACES } from '../../kube/group.js';
import { commonLabels, NAMESPACE, WEBHOOK_CONFIGURATION, WEBHOOK_SERVICE, WEBHOOKS } from '../../contract/names.js';

const TIMEOUT_SECONDS = 10;

/** Webhooks never see objects in svc-system or kube-system, so a broken webhook cannot lock out its own repair. */
export function webhookNamespaceSelector(): LabelSelector {
  return {
    matchExpressions: [
      { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [...WEBHOOK_EXCLUDED_NAMESPACES] },
    ],
  };
}

function rule(resource: string, operations: string[], scope: 'Namespaced' | 'Cluster'): RuleWithOperations {
  return { apiGroups: [GROUP], apiVersions: [VERSION], resources: [resource], operations, scope };
}

function common(path: string) {
  return {
    clientConfig: { service: { namespace: NAMESPACE, name: WEBHOOK_SERVICE, path, port: 443 } },
    namespaceSelector: webhookNamespaceSelector(),
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: TIMEOUT_SECONDS,
  };
}

export class WebhookConfigurations extends Construct {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    const metadata = { name: WEBHOOK_CONFIGURATION, labels: commonLabels() };
    new KubeMutatingWebhookConfiguration(this, 'mutating', {
      metadata,
      webhooks: [
        {
          name: WEBHOOKS.mutateWorkspace.name,
          ...common(WEBHOOKS.mutateWorkspace.path),
          rules: [rule('workspaces', ['CREATE'], 'Namespaced')],
          reinvocationPolicy: 'Never',
        },
      ],
    });
    new KubeValidatingWebhookConfiguration(this, 'validating', {
      metadata,
      webhooks: [
        {
          name: WEBHOOKS.validateWorkspace.name,
          ...common(WEBHOOKS.validateWorkspace.path),
          rules: [rule('workspaces', ['CREATE', 'UPDATE'], 'Namespaced')],
        },
        {
          name: WEBHOOKS.validateUserSpace.name,
          ...common(WEBHOOKS.validateUserSpace.path),
          rules: [rule('userspaces', ['UPDATE'], 'Cluster')],
        },
        {
          name: WEBHOOKS.validateImageRegistry.name,
          ...common(WEBHOOKS.validateImageRegistry.path),
          rules: [rule('imageregistries', ['CREATE', 'UPDATE'], 'Cluster')],
        },
        {
          name: WEBHOOKS.validateWorkspaceImage.name,
          ...common(WEBHOOKS.validateWorkspaceImage.path),
          rules: [rule('workspaceimages', ['CREATE', 'UPDATE'], 'Cluster')],
        },
      ],
    });
  }
}
