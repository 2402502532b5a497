// Building blocks of the CRDs' OpenAPI v3 schemas. The CRDs are the source of truth for the
// API, so every helper takes the description `kubectl explain` shows for the field.
import { PREFIXED_QUALIFIED_NAME_FMT } from '../kube/names.js';
import { QUANTITY_PATTERN } from '../kube/quantity.js';

/** When the kubelet pulls an image (core/v1 PullPolicy). */
export const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
export type PullPolicy = (typeof PULL_POLICIES)[number];

/** A resource.Quantity as JSON carries it: `10Gi`, `500m` or a bare integer. */
export type QuantityJson = string | number;

export interface ResourceRequirementsJson {
  limits?: Record<string, QuantityJson>;
  requests?: Record<string, QuantityJson>;
  claims?: { name: string }[];
}

/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps the Den CRDs use. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'boolean' | 'number';
  description?: string;
  format?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema;
  items?: JsonSchema;
  required?: string[];
  default?: unknown;
  enum?: (string | number | boolean)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  anyOf?: JsonSchema[];
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** A CEL rule; `message` is what the API server answers when the rule fails. */
export interface ValidationRule {
  rule: string;
  message: string;
}

type Extra = Omit<JsonSchema, 'type' | 'description'>;

export function string(description: string, extra: Extra = {}): JsonSchema {
  return { type: 'string', description, ...extra };
}

export function boolean(description: string, extra: Extra = {}): JsonSchema {
  return { type: 'boolean', description, ...extra };
}

export function integer(description: string, extra: Extra = {}): JsonSchema {
  return { type: 'integer', description, ...extra };
}

export function object(
  description: string,
  properties: Record<string, JsonSchema>,
  extra: Extra = {},
): JsonSchema {
  return { type: 'object', description, properties, ...extra };
}

export function arrayOf(description: string, items: JsonSchema, extra: Extra = {}): JsonSchema {
  return { type: 'array', description, items, ...extra };
}

export function timestamp(description: string): JsonSchema {
  return { type: 'string', format: 'date-time', description };
}

export function stringMap(description: string): JsonSchema {
  return { type: 'object', description, additionalProperties: { type: 'string' } };
}

/** A resource.Quantity: `2`, `500m`, `10Gi`. */
export function quantity(description: string): JsonSchema {
  return {
    description,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern: QUANTITY_PATTERN,
    'x-kubernetes-int-or-string': true,
  };
}

/** A Go duration as `time.ParseDuration` reads it: `4h`, `90m`, `1h30m`. */
export const DURATION_PATTERN = '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$';

/**
 * A standard Kubernetes type whose full schema the API server already knows from the core
 * API; copied verbatim into the pod spec, so it is kept as it is rather than re-spelled here.
 */
export function preserved(description: string, extra: Extra = {}): JsonSchema {
  return { type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true, ...extra };
}

export function localObjectReference(description: string): JsonSchema {
  return object(
    description,
    { name: string('Name of the referent.', { minLength: 1 }) },
    { required: ['name'], 'x-kubernetes-map-type': 'atomic' },
  );
}

export function tolerations(description: string): JsonSchema {
  return arrayOf(
    description,
    object('The pod this toleration is attached to tolerates any taint that matches the triple <key,value,effect>.', {
      key: string('Taint key the toleration applies to. Empty matches all taint keys; then operator must be Exists.'),
      operator: string('Relationship of the key to the value.', { enum: ['Exists', 'Equal'] }),
      value: string('Taint value the toleration matches to. Empty when operator is Exists.'),
      effect: string('Taint effect to match. Empty matches all taint effects.', {
        enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
      }),
      tolerationSeconds: integer(
        'For effect NoExecute only: how long the pod stays bound after the taint is added. Unset tolerates forever.',
        { format: 'int64' },
      ),
    }),
  );
}

/** The standard condition item (metav1.Condition) of SPEC 2.1. */
export function conditions(description: string): JsonSchema {
  return arrayOf(
    description,
    object(
      'One aspect of the current state of this object.',
      {
        type: string('Type of condition in CamelCase, for example Ready.', {
          maxLength: 316,
          pattern: `^${PREFIXED_QUALIFIED_NAME_FMT}$`,
        }),
        status: string('Status of the condition.', { enum: ['True', 'False', 'Unknown'] }),
        reason: string("A programmatic identifier, in CamelCase, of the reason for the condition's last transition.", {
          minLength: 1,
          maxLength: 1024,
          pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
        }),
        message: string('A human-readable message with details about the transition.', { maxLength: 32768 }),
        lastTransitionTime: timestamp('Last time the condition changed from one status to another.'),
        observedGeneration: integer('The metadata.generation this condition was set from.', {
          format: 'int64',
          minimum: 0,
        }),
      },
      { required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'] },
    ),
    { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
  );
}

export function observedGeneration(): JsonSchema {
  return integer('The metadata.generation the controller last acted on.', { format: 'int64', minimum: 0 });
}
