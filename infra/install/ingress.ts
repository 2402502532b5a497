// The server's Ingress: the web UI and REST API at the base URL's host, TLS when a Secret is named.
import { Construct } from 'constructs';
import { KubeIngress } from 'cdk8s-plus-28/lib/imports/k8s.js';
import { commonLabels, NAMESPACE, SERVER_SERVICE } from './names.js';

export interface ServerIngressProps {
  baseUrl: string;
  className: string;
  /** Empty: the base URL's host. */
  host: string;
  tlsSecret: string;
  annotations: Record<string, string>;
}

export class ServerIngress extends Construct {
  constructor(scope: Construct, id: string, props: ServerIngressProps) {
    super(scope, id);
    const host = props.host || new URL(props.baseUrl).hostname;
    new KubeIngress(this, 'ingress', {
      metadata: {
        name: SERVER_SERVICE,
        namespace: NAMESPACE,
        labels: { ...commonLabels(), 'app.kubernetes.io/component': 'server' },
        ...(Object.keys(props.annotations).length ? { annotations: props.annotations } : {}),
      },
      spec: {
        ...(props.className ? { ingressClassName: props.className } : {}),
        ...(props.tlsSecret ? { tls: [{ hosts: [host], secretName: props.tlsSecret }] } : {}),
        rules: [
          {
            host,
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: SERVER_SERVICE, port: { name: 'http' } } },
                },
              ],
            },
          },
        ],
      },
    });
  }
}
