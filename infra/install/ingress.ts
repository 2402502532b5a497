// The server's Ingresses: the web UI and REST API at the base URL's host, and, when an apps
// domain is set, every app host under it (`*.<domain>`); TLS when a Secret is named.
import { Construct } from 'constructs';
import { KubeIngress } from 'cdk8s-plus-28/lib/imports/k8s.js';
import { APPS_INGRESS, commonLabels, NAMESPACE, SERVER_SERVICE } from '../../contract/names.js';

export interface ServerIngressProps {
  baseUrl: string;
  className: string;
  /** Empty: the base URL's host. */
  host: string;
  tlsSecret: string;
  annotations: Record<string, string>;
}

/** One Ingress sending every path of `host` to den server's Service, with TLS when a Secret is named. */
function ingressToServer(scope: Construct, name: string, host: string, props: { className: string; tlsSecret: string; annotations: Record<string, string> }): KubeIngress {
  return new KubeIngress(scope, 'ingress', {
    metadata: {
      name,
      namespace: NAMESPACE,
      labels: { ...commonLabels(), 'app.kubernetes.io/component': 'server' },
      ...(Object.keys(props.annotations).length ? { annotations: props.annotations } : {}),
    },
    spec: {
      ...(props.className ? { ingressClassName: props.className } : {}),
      ...(props.tlsSecret ? { tls: [{ hosts: [host], secretName: props.tlsSecret }] } : {}),
      rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: SERVER_SERVICE, port: { name: 'http' } } } }] } }],
    },
  });
}

export class ServerIngress extends Construct {
  constructor(scope: Construct, id: string, props: ServerIngressProps) {
    super(scope, id);
    ingressToServer(this, SERVER_SERVICE, props.host || new URL(props.baseUrl).hostname, props);
  }
}

export interface AppsIngressProps {
  domain: string;
  className: string;
  /** A wildcard certificate for `*.<domain>`; empty: plain HTTP. */
  tlsSecret: string;
  annotations: Record<string, string>;
}

/** `*.<domain>` to den server, which tells app hosts from its own by the Host header. */
export class AppsIngress extends Construct {
  constructor(scope: Construct, id: string, props: AppsIngressProps) {
    super(scope, id);
    ingressToServer(this, APPS_INGRESS, `*.${props.domain}`, props);
  }
}
