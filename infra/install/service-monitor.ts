// For the Prometheus Operator: a headless Service over every Den pod's health port and a
// ServiceMonitor scraping its /metrics. The public Services never carry the health port.
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { IntOrString, KubeService } from 'cdk8s-plus-28/lib/imports/k8s.js';
import { commonLabels, HEALTH_PORT, NAMESPACE } from '../../contract/names.js';

export const METRICS_SERVICE = 'den-metrics';

export class ServiceMonitors extends Construct {
  constructor(scope: Construct, id: string, props: { interval: string; labels: Record<string, string> }) {
    super(scope, id);
    const labels = { ...commonLabels(), 'app.kubernetes.io/component': 'metrics' };
    new KubeService(this, 'service', {
      metadata: { name: METRICS_SERVICE, namespace: NAMESPACE, labels },
      spec: {
        clusterIp: 'None',
        selector: { 'app.kubernetes.io/name': 'den', 'app.kubernetes.io/part-of': 'den' },
        ports: [{ name: 'metrics', port: HEALTH_PORT, targetPort: IntOrString.fromNumber(HEALTH_PORT), protocol: 'TCP' }],
      },
    });
    new ApiObject(this, 'service-monitor', {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: { name: 'den', namespace: NAMESPACE, labels: { ...props.labels, ...commonLabels() } },
      spec: {
        selector: { matchLabels: labels },
        namespaceSelector: { matchNames: [NAMESPACE] },
        endpoints: [{ port: 'metrics', path: '/metrics', interval: props.interval }],
      },
    });
  }
}
