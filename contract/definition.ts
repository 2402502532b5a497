// Assembles one apiextensions.k8s.io/v1 CustomResourceDefinition from a kind's schema pieces.
import { GROUP, VERSION } from '../kube/group.js';
import type { JsonSchema } from './schema.js';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description: string;
  priority?: number;
}

export interface KindDefinition {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: 'Cluster' | 'Namespaced';
  description: string;
  spec: JsonSchema;
  status: JsonSchema;
  columns: PrinterColumn[];
}

/** Every Den kind shows up in `kubectl get den`. */
export const CATEGORY = 'den';

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    scope: 'Cluster' | 'Namespaced';
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames: string[]; categories: string[] };
    versions: {
      name: string;
      served: true;
      storage: true;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
      schema: { openAPIV3Schema: JsonSchema };
    }[];
  };
}

const AGE: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'Time since the object was created.',
};

export function customResourceDefinition(def: KindDefinition): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${def.plural}.${GROUP}`,
      labels: { 'app.kubernetes.io/name': 'den', 'app.kubernetes.io/part-of': 'den' },
    },
    spec: {
      group: GROUP,
      scope: def.scope,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular,
        shortNames: def.shortNames,
        categories: [CATEGORY],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          // Without an explicit Age column, kubectl drops it once any column is declared.
          additionalPrinterColumns: [...def.columns, AGE],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: def.description,
              required: ['spec'],
              properties: {
                apiVersion: {
                  type: 'string',
                  description:
                    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
                },
                kind: {
                  type: 'string',
                  description:
                    'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. In CamelCase.',
                },
                // The API server refuses anything but a bare type here (even a description).
                metadata: { type: 'object' },
                spec: def.spec,
                status: def.status,
              },
            },
          },
        },
      ],
    },
  };
}
